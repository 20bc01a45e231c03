import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSchemas, render } from '../spec/generate-json.js';

describe('spec/json is generated from the TypeBox source', () => {
  it.each(Object.keys(jsonSchemas()))('%s has not drifted (fix: npm run spec:json)', (name) => {
    const committed = readFileSync(join(import.meta.dirname, '../spec/json', name), 'utf8');
    expect(committed).toBe(render(jsonSchemas()[name]));
  });
});
