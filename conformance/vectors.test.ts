import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { ConformanceVector } from '../spec/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { brokenByName } from './broken/index.js';
import { HAND_WRITTEN, generateAll } from './generate-vectors.js';
import { loadVectors, runVector, vectorsDir } from './vectors.js';

const dir = vectorsDir();

describe('fixed vectors (conformance/vectors)', () => {
  it('match what the reference produces today (fix: npm run conformance:vectors)', async () => {
    const generated = await generateAll();
    const committed = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
    expect(committed).toEqual([...generated.keys()].sort());
    for (const [name, text] of generated) expect(readFileSync(join(dir, name), 'utf8'), `${name} drifted`).toBe(text);
  }, 60_000);

  it('are valid against the spec schema and cover the rules', () => {
    const check = Compile(ConformanceVector);
    const vectors = loadVectors();
    for (const v of vectors) expect(check.Check(v), v.name).toBe(true);
    const covered = new Set(vectors.flatMap((v) => v.rules));
    for (const rule of ['R1', 'R5', 'R6', 'R7', 'R8', 'R9', 'R9b', 'R10', 'R11', 'R12', 'R13', 'R14', 'R15', 'R16', 'R17', 'R20', 'R21', 'R22', 'R23', 'R24', 'R25', 'R26', 'R27', 'R28', 'R29', 'R30', 'R31', 'R32', 'R33', 'R34', 'R40', 'R41', 'R42', 'R43', 'R44', 'R50', 'R51']) {
      expect(covered.has(rule), rule).toBe(true);
    }
    expect(HAND_WRITTEN.length).toBeGreaterThanOrEqual(27);
  });

  it('replay against the reference', async () => {
    for (const v of loadVectors()) expect((await runVector(createMemoryStore, v)).failure, v.name).toBeUndefined();
  });

  it('fail on a changed expectation and on a broken store', async () => {
    const v = structuredClone(loadVectors().find((x) => x.name === 'r27-r28-ack-and-follow-up')!);
    const last = v.steps.at(-1)!;
    last.expect = { ok: true, result: ['something else'] };
    const r = await runVector(createMemoryStore, v);
    expect(r.failure?.step).toBe(v.steps.length);
    const original = loadVectors().find((x) => x.name === 'r27-r28-ack-and-follow-up')!;
    expect((await runVector(brokenByName('acks-to-head')!.create, original)).failure?.message).toMatch(/^step 7 pendingNotices/);
  });

  it('the hand-written vectors of the review catch their broken stores', async () => {
    const byName = (n: string) => loadVectors().find((x) => x.name === n)!;
    const cases: [string, string, RegExp][] = [
      ['rewatch-no-refresh', 'r44-refresh-by-rewatch-and-ack', /^step 11 pendingNotices\("agent:main:coordinator"\)/],
      ['ack-no-refresh', 'r44-refresh-by-rewatch-and-ack', /^step 12 pendingNotices\("agent:main:subagent:lead"\)/],
      ['sweep-refreshes', 'r29-r44-restart-keeps-expiry-clock', /^step 7 pendingNotices/],
      ['delete-ignores-agent', 'r01-identity-agent-match', /^step 7 deleteSession/],
      ['clock-unchecked', 'r06-clock-floor-and-refusal', /^step 1 record/],
      ['prune-waits-for-clock', 'r43-clock-steps-back', /^step 7 changesSince/],
      ['gate-counts-self', 'r09b-only-if-watched', /^step 2 record/],
      ['noop-restart', 'r43-prune-schedule', /^step 16 changesSince/],
      ['restart-sweeps', 'r29-restart', /^step 13 drainNotices/],
      ['forgets-on-restart', 'r29-restart', /^step 8 pendingNotices/],
      ['unwatch-keeps-notice', 'r52-unwatch', /^step 6 pendingNotices/],
      ['ack-ignores-last-seen', 'r27b-ack-notices', /^step 7 ackNotices/],
    ];
    for (const [broken, vector, where] of cases) {
      expect((await runVector(brokenByName(broken)!.create, byName(vector))).failure?.message, `${broken} on ${vector}`).toMatch(where);
    }
  });
});
