/**
 * Teeth: the suite must catch every deliberately broken implementation in conformance/broken,
 * each by at least one rule-tied property (not only by `model` or `vectors`, which compare with the
 * reference: the rule-tied properties must judge on their own),
 * while the unmodified variant they are built from passes everything.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, CONTROL } from './broken/index.js';
import { PROPERTIES, formatReport, runConformance } from './index.js';

const SEED = 424242;
const RUNS = 25;
// The 50,000-row property records 50,000 events per store; it runs only against the stores whose
// bug lies in pruning (below), so this file stays fast.
const FAST = PROPERTIES.map((p) => p.name).filter((n) => n !== 'R42-real-limits');
const caughtBy = new Map<string, string[]>();

describe('broken implementations', () => {
  it('the unmodified variant (the control) passes every property', async () => {
    const r = await runConformance(CONTROL, { seed: SEED, runs: RUNS });
    if (!r.passed) console.error(formatReport(r));
    expect(r.passed).toBe(true);
  }, 120_000);

  it('there are at least 10, each naming the rule it breaks', () => {
    expect(BROKEN.length).toBeGreaterThanOrEqual(10);
    for (const b of BROKEN) expect(b.rule).toMatch(/^R\d+b?$/);
  });

  it.each(BROKEN.map((b) => [b.name, b] as const))('%s is caught', async (_name, b) => {
    const r = await runConformance(b.create, { seed: SEED, runs: RUNS, shrink: false, properties: FAST });
    const caught = r.properties.filter((p) => !p.passed).map((p) => p.name);
    caughtBy.set(b.name, caught);
    expect(caught, `${b.name} (${b.rule}: ${b.what}) was not caught`).not.toEqual([]);
    expect(caught.filter((n) => n !== 'model' && n !== 'vectors'), `${b.name} was caught only by comparison with the reference`).not.toEqual([]);
  }, 60_000);

  it.each(['head-regresses', 'prune-without-watermark', 'gap-by-arithmetic'])('%s is caught at the real 50,000-row / 30-day limits', async (name) => {
    const b = BROKEN.find((x) => x.name === name)!;
    const r = await runConformance(b.create, { seed: SEED, properties: ['R42-real-limits'] });
    expect(r.passed).toBe(false);
  }, 60_000);

  afterAll(() => {
    const width = Math.max(...BROKEN.map((b) => b.name.length));
    const lines = BROKEN.map((b) => `  ${b.name.padEnd(width)}  ${b.rule.padEnd(4)}  ${(caughtBy.get(b.name) ?? ['(not run)']).join(', ')}`);
    console.log(`which properties caught each broken implementation (seed ${SEED}, ${RUNS} cases):\n${lines.join('\n')}`);
  });
});
