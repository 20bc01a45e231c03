/**
 * Teeth: the suite must catch every deliberately broken implementation in conformance/broken,
 * each by at least one rule-tied property (not only by `model` or `vectors`, which compare with the
 * reference: the rule-tied properties must judge on their own),
 * while the unmodified variant they are built from passes everything.
 */
import { afterAll, describe, expect, it } from 'vitest';
import * as handleLocalQueue from './broken/handle-local-queue.js';
import { BROKEN, BROKEN_FOR_VECTORS, CONTROL } from './broken/index.js';
import { PROPERTIES, formatReport, loadVectors, runConformance, runVector } from './index.js';

const SEED = 424242;
/** Cases per property for the table of who catches what (fast: failing properties stop at the first failure). */
const RUNS = 20;
/** Cases for the one property each broken store must fail on its own, when the table did not show it. */
const DESIGNATED_RUNS = 60;
// The 50,000-row property records 50,000 events per store; it runs only against the stores whose
// bug lies in pruning (below), so this file stays fast.
const FAST = PROPERTIES.map((p) => p.name).filter((n) => n !== 'R42-real-limits');
const caughtBy = new Map<string, string[]>();

/**
 * Broken only across handles (conformance/handles.ts): with one handle each is the reference, so
 * the ordinary suite passes it; in multi-handle mode (3 handles on one store) it must be caught,
 * by the designated multi-handle property on its own.
 */
const ACROSS_HANDLES = [{ name: 'handle-local-queue', ...handleLocalQueue.breaks, create: handleLocalQueue.create, target: handleLocalQueue.handles, designated: 'R20-R27-handles-agree' }];
const SINGLE = FAST.filter((n) => !PROPERTIES.find((p) => p.name === n)!.multiHandle);

/**
 * The rule-tied property that must catch each broken store by itself (with the fixed seed), so a
 * generator change that stops reaching the bug fails here instead of passing on the strength of
 * `model`, `vectors` or an unrelated property.
 */
const DESIGNATED: Record<string, string> = {
  'no-coalescing': 'R24-one-pending-notice',
  'notifies-actor': 'R12-self-suppression',
  'acks-to-head': 'R27-R28-ack-on-drain',
  'no-follow-up': 'R27-R28-ack-on-drain',
  'gap-by-arithmetic': 'R33-history-gap',
  'head-regresses': 'R42-heads-monotonic',
  'changes-since-acks': 'R34-read-only',
  'prune-without-watermark': 'R33-history-gap',
  'ignores-agent-in-heads': 'R42-heads-monotonic',
  'forgets-on-restart': 'R29-restart',
  'notifies-bare-keys': 'R13-bare-keys',
  'terminal-notifies-parent': 'R16-terminal-runs',
  'rewatch-clobbers': 'R21-R22-explicit-watch',
  'limit-not-clamped': 'R30-R32-changes-since',
  'wrong-notice-text': 'R23-notice-text',
  'log-only-notifies': 'R17-log-only',
  'history-notifies': 'R21-R22-explicit-watch',
  'spawn-not-seeded': 'R14-spawn-seeding',
  'dedupe-renotifies': 'R8-dedupe',
  'stores-message-text': 'R3-R4-no-message-text',
  'vague-validation-field': 'R9-validation',
  'rewatch-no-refresh': 'R44-cursor-expiry',
  'ack-no-refresh': 'R44-cursor-expiry',
  'sweep-refreshes': 'R44-cursor-expiry',
  'noop-restart': 'R43-prune-schedule',
  'delete-ignores-agent': 'R1-identity-agent',
  'prune-waits-for-clock': 'R43-prune-schedule',
  'gate-counts-self': 'R9b-only-if-watched',
  'clock-unchecked': 'R6-clock',
  'restart-sweeps': 'R29-restart',
  'unwatch-keeps-notice': 'R52-unwatch',
  'ack-ignores-last-seen': 'R27b-ack-notices',
  'batch-not-atomic': 'R9e-record-many',
  'watcher-queue-capped': 'R24-one-pending-notice',
  'watcher-case-folded': 'R24-one-pending-notice',
  'fractional-clock-drops': 'R6-clock',
  'delete-drops-other-agents': 'R24-one-pending-notice',
  'spawn-seeds-self': 'R9b-only-if-watched',
  'prunes-on-dedupe-hit': 'R33-history-gap',
  'link-template-lax': 'R23b-link-template',
};

/**
 * Bugs found in a production implementation (and one mutant) that the generators once never
 * reached: each must be caught by the default run (each property's own case count, any seed).
 */
const DEFAULT_RUN = ['watcher-queue-capped', 'watcher-case-folded', 'fractional-clock-drops', 'delete-drops-other-agents', 'spawn-seeds-self'];

describe('broken implementations', () => {
  it('the unmodified variant (the control) passes every property', async () => {
    const r = await runConformance(CONTROL, { seed: SEED, runs: 25 });
    if (!r.passed) console.error(formatReport(r));
    expect(r.passed).toBe(true);
  }, 120_000);

  it('there are at least 10, each naming the rule it breaks and the property that must catch it', () => {
    expect(BROKEN.length).toBeGreaterThanOrEqual(10);
    for (const b of BROKEN) expect(b.rule).toMatch(/^R\d+[a-z]?$/);
    expect(Object.keys(DESIGNATED).sort()).toEqual(BROKEN.map((b) => b.name).sort());
    for (const p of Object.values(DESIGNATED)) expect(FAST, p).toContain(p);
  });

  it.each(BROKEN.map((b) => [b.name, b] as const))('%s is caught', async (_name, b) => {
    const r = await runConformance(b.create, { seed: SEED, runs: RUNS, shrink: false, properties: FAST });
    const caught = r.properties.filter((p) => !p.passed).map((p) => p.name);
    const designated = DESIGNATED[b.name]!;
    if (!caught.includes(designated)) {
      const again = await runConformance(b.create, { seed: SEED, runs: DESIGNATED_RUNS, shrink: false, properties: [designated] });
      if (!again.passed) caught.push(designated);
    }
    caughtBy.set(b.name, caught);
    expect(caught, `${b.name} (${b.rule}: ${b.what}) was not caught`).not.toEqual([]);
    expect(caught.filter((n) => n !== 'model' && n !== 'vectors'), `${b.name} was caught only by comparison with the reference`).not.toEqual([]);
    expect(caught, `${b.name} (${b.rule}: ${b.what}) must be caught by ${designated} on its own`).toContain(designated);
  }, 60_000);

  it.each(DEFAULT_RUN)('%s is caught by the default run, by its designated property', async (name) => {
    const b = BROKEN.find((x) => x.name === name)!;
    for (const seed of [SEED, 7]) {
      const r = await runConformance(b.create, { seed, shrink: false, properties: [DESIGNATED[name]!] });
      expect(r.passed, `${name} with seed ${seed}`).toBe(false);
    }
  }, 120_000);

  it.each(['head-regresses', 'prune-without-watermark', 'gap-by-arithmetic'])('%s is caught at the real 50,000-row / 30-day limits', async (name) => {
    const b = BROKEN.find((x) => x.name === name)!;
    const r = await runConformance(b.create, { seed: SEED, properties: ['R42-real-limits'] });
    expect(r.passed).toBe(false);
  }, 60_000);

  it.each(ACROSS_HANDLES.map((b) => [b.name, b] as const))('%s passes with one handle and is caught with three handles on one store', async (_name, b) => {
    const single = await runConformance(b.create, { seed: SEED, runs: RUNS, shrink: false, properties: SINGLE });
    expect(single.properties.filter((p) => !p.passed).map((p) => p.name), `${b.name} must be the reference with one handle`).toEqual([]);
    const multi = await runConformance(b.target, { seed: SEED, runs: RUNS, shrink: false, properties: FAST, handles: 3 });
    const caught = multi.properties.filter((p) => !p.passed).map((p) => p.name);
    caughtBy.set(b.name, caught);
    expect(caught, `${b.name} (${b.rule}: ${b.what}) must be caught by ${b.designated} on its own`).toContain(b.designated);
    expect(caught, `${b.name}: the lockstep model must catch it across handles too`).toContain('model');
  }, 120_000);

  afterAll(() => {
    const all = [...BROKEN.map((b) => ({ ...b, designated: DESIGNATED[b.name]! })), ...ACROSS_HANDLES.map((b) => ({ ...b, name: `${b.name} (3 handles)` }))];
    const width = Math.max(...all.map((b) => b.name.length));
    const lines = all.map((b) => `  ${b.name.padEnd(width)}  ${b.rule.padEnd(4)}  [${b.designated}]  ${(caughtBy.get(b.name.replace(' (3 handles)', '')) ?? ['(not run)']).join(', ')}`);
    console.log(`which properties caught each broken implementation (seed ${SEED}, ${RUNS} cases; [the one that must]):\n${lines.join('\n')}`);
  });
});

describe('teeth of the round-3 vectors: each reading the text once left open has a broken store its vector catches', () => {
  it.each(BROKEN_FOR_VECTORS.map((b) => [b.name, b] as const))('%s is caught by its vector and passes the others', async (_name, b) => {
    const vectors = loadVectors();
    const own = vectors.find((v) => v.name === b.vector)!;
    expect((await runVector(b.create, own)).failure, `${b.vector} must catch ${b.name}`).toBeDefined();
    // It breaks exactly one reading: every other vector replays as the reference's.
    const others = await Promise.all(vectors.filter((v) => v.name !== b.vector).map(async (v) => [v.name, (await runVector(b.create, v)).failure?.message] as const));
    expect(others.filter(([, m]) => m !== undefined)).toEqual([]);
  });
});
