import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../../spec/index.js';
import { SCENARIOS, buildVector, renderVector } from '../../conformance/tools/generate-vectors.js';
import { loadToolVectors, replayToolVector, toolVectorsDir } from '../../conformance/tools/replay.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { sqliteStoreFactory } from '../../src/sqlite/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The tool texts are specified byte for byte (T3-T7): the committed vectors are what the reference
// produced, and every store of the contract must reproduce them through the same handlers.
const vectors = loadToolVectors();
const stores: [string, StoreFactory][] = [
  ['memory', createMemoryStore],
  ['sqlite', sqliteStoreFactory({ logger: silentLogger })],
];

describe('tool vectors (T1-T7)', () => {
  it('every scenario has a committed vector', () => {
    expect(vectors.map((v) => v.name).sort()).toEqual(SCENARIOS.map((s) => s.name).sort());
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s has not drifted from the reference (fix: npm run tools:vectors)', async (name, s) => {
    const committed = readFileSync(join(toolVectorsDir(), `${name}.json`), 'utf8');
    expect(committed).toBe(renderVector(await buildVector(s)));
  });

  for (const [storeName, factory] of stores) {
    it.each(vectors.map((v) => [v.name, v] as const))(`${storeName}: %s replays byte for byte`, async (_name, v) => {
      const { mismatches } = await replayToolVector(v, factory);
      expect(mismatches).toEqual([]);
    });
  }

  it('a replay notices a text that differs by one byte (the check can fail)', async () => {
    const v = structuredClone(vectors.find((x) => x.name === 't03-session-status')!);
    const call = v.calls.find((c) => c.tool === 'session_status' && c.expect.ok)!;
    if (call.expect.ok) call.expect.text = `${call.expect.text} `;
    const { mismatches } = await replayToolVector(v, createMemoryStore);
    expect(mismatches).toHaveLength(1);
  });

  it('T3 texts keep every event on one line: the line count is fixed by the event count', () => {
    for (const v of vectors) {
      for (const c of v.calls) {
        if (c.tool !== 'session_status' || !c.expect.ok) continue;
        const r = c.expect.result as { stateChanges?: { events: unknown[]; historyGap: boolean; truncated: boolean } };
        const lines = c.expect.text!.split('\n').length;
        const sc = r.stateChanges;
        const expected = sc === undefined ? 1 : 1 + (sc.historyGap ? 1 : 0) + 1 + sc.events.length + (sc.truncated ? 1 : 0);
        expect(lines, `${v.name}: ${c.expect.text}`).toBe(expected);
      }
    }
  });
});
