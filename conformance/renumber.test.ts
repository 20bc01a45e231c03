/**
 * R7/W6: sequences are compared up to an order-preserving renaming, so an implementation whose
 * counter skips values (conformance/variants/sparse-sequences.ts) passes, while one that reuses or
 * lowers a sequence still fails.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/memory/index.js';
import { PROPERTIES, formatReport, runConformance } from './index.js';
import { SequenceRenaming, renameStore } from './renumber.js';
import * as sparse from './variants/sparse-sequences.js';
import { loadVectors, runVector } from './vectors.js';

const human = (sessionKey: string, extra: Record<string, unknown> = {}) => ({ sessionKey, agentId: 'main', kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram', ...extra });

describe('R7: sparse sequences are conforming', () => {
  it('the sparse store really is sparse (starts at 1000, a dedupe hit burns a value)', () => {
    const s = sparse.create({ now: () => 0 });
    expect(s.record(human('agent:main:a', { dedupeKey: 'k' }))!.sequence).toBe(1000);
    expect(s.record(human('agent:main:a', { dedupeKey: 'k' }))!.sequence).toBe(1000);
    expect(s.record(human('agent:main:a'))!.sequence).toBe(1002);
  });

  it('passes every fixed vector, r07-r08-sequences-and-dedupe included', async () => {
    const runs = [];
    for (const v of loadVectors()) runs.push(await runVector(sparse.create, v));
    expect(runs.filter((r) => r.failure)).toEqual([]);
  });

  it('passes every property, across 3 handles too', async () => {
    const properties = PROPERTIES.map((p) => p.name).filter((n) => n !== 'R42-real-limits');
    const r = await runConformance(sparse, { seed: 36, runs: 8, properties });
    if (!r.passed) console.error(formatReport(r));
    expect(r.handles).toBe(3);
    expect(r.properties.filter((p) => !p.passed).map((p) => p.name)).toEqual([]);
  }, 300_000);
});

describe('the renaming', () => {
  it('names sequences by order of appearance and renames gaps by their distance', () => {
    const r = new SequenceRenaming();
    expect(r.identity).toBe(true);
    expect([r.name(10), r.name(11), r.name(20), r.name(10)]).toEqual([1, 2, 3, 1]);
    expect(r.identity).toBe(false);
    expect([r.toName(0), r.toName(10), r.toName(11), r.toName(12), r.toName(20), r.toName(21)]).toEqual([0, 1, 2, 3, 3, 4]);
    // Further into a gap, or below the first sequence: never an integer, so never a correct answer.
    expect([r.toName(13), r.toName(5)].every((x) => !Number.isInteger(x))).toBe(true);
    expect([r.fromName(0), r.fromName(1), r.fromName(3), r.fromName(5), r.fromName(-1), r.fromName(1.5)]).toEqual([0, 10, 20, 22, -1, 1.5]);
  });

  it('R7: a new event below an earlier one fails record', () => {
    let next = 5;
    const inner = createMemoryStore({ now: () => 0 });
    const lowering = Object.assign(Object.create(inner) as typeof inner, {
      record: (input: Parameters<typeof inner.record>[0]) => ({ ...inner.record(input)!, sequence: next-- }),
    });
    const s = renameStore(lowering);
    expect(s.record(human('agent:main:a'))).toMatchObject({ sequence: 1 });
    expect(() => s.record(human('agent:main:a'))).toThrow(/R7: the new event's sequence 4 is below an earlier event's 5/);
  });
});
