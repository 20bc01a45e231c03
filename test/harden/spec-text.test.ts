/**
 * Spec text an independent implementer must not have to guess: PROTOCOL.md §10 names every wire
 * op's positional arguments (W4) with the arity the servers enforce; the vector descriptions that
 * talk about the clock agree with their data (R6).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXCLUDED_CODE_POINTS, OpaqueId, STORE_OPS, STORE_OP_ARITY, SessionKey } from '../../spec/index.js';

const root = join(import.meta.dirname, '..', '..');
const protocol = readFileSync(join(root, 'spec', 'PROTOCOL.md'), 'utf8');

describe('spec text', () => {
  it('W4: PROTOCOL.md names the positional arguments of every op, as many as the wire arity', () => {
    const table = protocol.slice(protocol.indexOf('**W4 Operations.**'), protocol.indexOf('**W5'));
    for (const op of STORE_OPS) {
      const row = table.split('\n').find((l) => l.includes(`\`${op}\``));
      expect(row, op).toBeDefined();
      const args = /\| `\[([^\]]*)\]`/.exec(row!)?.[1] ?? '';
      const names = args.split(',').map((a) => a.trim()).filter(Boolean);
      expect(names.length, `${op}: ${args}`).toBe(STORE_OP_ARITY[op]);
      for (const n of names) expect(n, `${op}: argument without a name and schema`).toMatch(/^[a-zA-Z]+: [A-Z][A-Za-z]+$/);
    }
  });

  it('R6: a vector that says which calls read the clock expects ClockError from exactly those', () => {
    for (const file of readdirSync(join(root, 'conformance', 'vectors'))) {
      const v = JSON.parse(readFileSync(join(root, 'conformance', 'vectors', file), 'utf8')) as {
        description: string;
        steps: { now: number; op: string; args: unknown[]; expect: { ok: boolean; error?: { name: string } } }[];
      };
      if (!v.description.includes('ClockError')) continue;
      for (const s of v.steps.filter((x) => x.now < 0)) {
        const clockError = s.expect.error?.name === 'ClockError';
        const reads = s.op === 'record' || s.op === 'drainNotices' || s.op === 'ackNotices' || s.op === 'prune' || s.op === 'restart' || s.op === 'watch';
        if (!reads) expect(clockError, `${file}: ${s.op} must not read the clock`).toBe(false);
        // An empty drain reads the clock too (R6): the description must not say otherwise.
        if (s.op === 'drainNotices') expect(clockError, `${file}: drain`).toBe(true);
      }
      expect(v.description, file).not.toMatch(/a drain that acks/);
    }
  });

  it('R1/R3: the published excluded ranges are exactly what the schema patterns refuse, code point by code point', () => {
    const published = JSON.parse(readFileSync(join(root, 'spec', 'json', 'excluded-code-points.json'), 'utf8')) as { const: typeof EXCLUDED_CODE_POINTS };
    expect(published.const).toEqual(JSON.parse(JSON.stringify(EXCLUDED_CODE_POINTS)));
    for (const [name, schema, ranges] of [['sessionKey', SessionKey, EXCLUDED_CODE_POINTS.sessionKey], ['opaqueIdAndSummary', OpaqueId, EXCLUDED_CODE_POINTS.opaqueIdAndSummary]] as const) {
      const pattern = new RegExp((schema as unknown as { pattern: string }).pattern, 'u');
      let r = 0;
      let mismatches = 0;
      for (let cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates: refused by well-formedness, not by the ranges
        while (r < ranges.length && ranges[r]![1] < cp) r++;
        const excluded = r < ranges.length && ranges[r]![0] <= cp;
        if (excluded === pattern.test(String.fromCodePoint(cp))) mismatches++;
      }
      expect(mismatches, name).toBe(0);
    }
    expect(protocol).toContain('spec/json/excluded-code-points.json');
  });
});
