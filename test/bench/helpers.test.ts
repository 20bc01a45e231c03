import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS_FOR_CHECK } from '../../bench/floors.js';
import { GROUPS } from '../../bench/groups.js';
import { groupSelected, parseArgs, timestampFileName } from '../../bench/lib/args.js';
import {
  attachRatios,
  checkFailed,
  checkLimits,
  formatDuration,
  formatRate,
  formatRatio,
  makeResult,
  renderTable,
  resultTable,
  type CaseResult,
  type Limit,
} from '../../bench/lib/report.js';
import { opsPerSecond, percentile, slope, summarize, throughputRatio, type LatencySummary } from '../../bench/lib/stats.js';
import { PLANS, shortCount } from '../../bench/plan.js';
import { toPlainEvent } from '../../bench/cases/changes-since.js';
import { T0, Workspace, emptyWal, loadEvents, openRaw } from '../../bench/lib/fixtures.js';

// Pure helpers of the benchmark only: no timing here (performance claims come from `npm run bench`).

function latency(p50Ms: number, meanMs = p50Ms): LatencySummary {
  return { p50Ms, meanMs, p99Ms: p50Ms, minMs: p50Ms, maxMs: p50Ms, samples: 10 };
}

function result(id: string, p50Ms: number, extra: Partial<CaseResult> = {}): CaseResult {
  return makeResult({ id, group: id.split('/')[0]!, label: id, size: 's', unit: 'op', unitsPerOp: 1, latency: latency(p50Ms), ...extra });
}

describe('stats', () => {
  it('percentile interpolates between order statistics', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([5], 0.5)).toBe(5);
    expect(percentile([1, 3], 0)).toBe(1);
    expect(percentile([1, 3], 1)).toBe(3);
    expect(() => percentile([], 0.5)).toThrow(RangeError);
    expect(() => percentile([1], 1.5)).toThrow(RangeError);
  });

  it('summarize sorts and reports the median, not the mean', () => {
    const s = summarize([10, 1, 2, 3, 100]);
    expect(s.p50Ms).toBe(3);
    expect(s.meanMs).toBe(23.2);
    expect(s.minMs).toBe(1);
    expect(s.maxMs).toBe(100);
    expect(s.samples).toBe(5);
    expect(() => summarize([])).toThrow(RangeError);
  });

  it('ops/s and ratios come from medians; the ratio is subject rate over baseline rate', () => {
    expect(opsPerSecond(0.025)).toBeCloseTo(40_000);
    // Subject takes twice as long as the baseline: half its rate.
    expect(throughputRatio(0.05, 0.025)).toBe(0.5);
    expect(throughputRatio(0.025, 0.05)).toBe(2);
    expect(() => throughputRatio(0, 1)).toThrow(RangeError);
  });

  it('slope is the least-squares dy/dx', () => {
    expect(slope([0, 1, 2, 3], [10, 12, 14, 16])).toBeCloseTo(2);
    expect(slope([0, 1, 2], [5, 5, 5])).toBe(0);
    expect(slope([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(0.8);
    expect(() => slope([1, 1], [1, 2])).toThrow(RangeError);
    expect(() => slope([1], [1])).toThrow(RangeError);
  });
});

describe('ratios', () => {
  it('attachRatios compares per unit of work and leaves baselines without a ratio', () => {
    const [base, subject] = attachRatios([
      result('g/base', 0.01),
      // 100 units in 2 ms = 20 µs per unit, against 10 µs per unit: 0.5.
      result('g/subject', 2, { unitsPerOp: 100, baselineId: 'g/base' }),
    ]);
    expect(base!.ratio).toBeUndefined();
    expect(subject!.ratio).toBeCloseTo(0.5);
    expect(subject!.ratioMean).toBeCloseTo(0.5);
  });

  it('attachRatios refuses a result whose baseline was not measured', () => {
    expect(() => attachRatios([result('g/subject', 1, { baselineId: 'g/missing' })])).toThrow(/baseline g\/missing/);
  });
});

describe('checkLimits (the CI floor check)', () => {
  const floor: Limit = { id: 'append/sqlite@0w', metric: 'ratio', min: 0.3, why: 'test' };
  const ran = () => true;

  it('fails a ratio below its floor and passes one at or above it', () => {
    const below = attachRatios([result('append/raw', 0.01), result('append/sqlite@0w', 0.05, { baselineId: 'append/raw' })]);
    const at = attachRatios([result('append/raw', 0.03), result('append/sqlite@0w', 0.1, { baselineId: 'append/raw' })]);
    const [b] = checkLimits(below, [floor], ran);
    const [a] = checkLimits(at, [floor], ran);
    expect(b!.status).toBe('fail');
    expect(b!.value).toBeCloseTo(0.2);
    expect(checkFailed([b!])).toBe(true);
    expect(a!.status).toBe('pass');
    expect(checkFailed([a!])).toBe(false);
  });

  it('treats a missing result as a failure when its group ran, and skips it when the group was filtered out', () => {
    expect(checkLimits([], [floor], () => true)[0]!.status).toBe('missing');
    expect(checkFailed(checkLimits([], [floor], () => true))).toBe(true);
    const skipped = checkLimits([], [floor], (group) => group !== 'append');
    expect(skipped[0]!.status).toBe('skipped');
    expect(checkFailed(skipped)).toBe(false);
  });

  it('checks ceilings on extra metrics (memory slope)', () => {
    const ceiling: Limit = { id: 'memory/sqlite', metric: 'heapSlopeBytesPerAppend', max: 8, why: 'test' };
    const flat = [result('memory/sqlite', 1, { extra: { heapSlopeBytesPerAppend: 0.5 } })];
    const leaking = [result('memory/sqlite', 1, { extra: { heapSlopeBytesPerAppend: 40 } })];
    expect(checkLimits(flat, [ceiling], ran)[0]!.status).toBe('pass');
    expect(checkLimits(leaking, [ceiling], ran)[0]!.status).toBe('fail');
    expect(checkLimits([result('memory/sqlite', 1)], [ceiling], ran)[0]!.status).toBe('missing');
  });

  it('a limit with neither min nor max is itself a failure', () => {
    const broken: Limit = { id: 'append/sqlite@0w', metric: 'ratio', why: 'test' };
    expect(checkLimits([], [broken], ran)[0]!.status).toBe('fail');
  });
});

describe('bench/floors.ts', () => {
  const groups = new Set(GROUPS.map((g) => g.group));

  it('every limit names a known group, one bound, a positive value and a reason', () => {
    expect(LIMITS_FOR_CHECK.length).toBeGreaterThan(0);
    for (const l of LIMITS_FOR_CHECK) {
      expect(groups.has(l.id.split('/')[0]!), l.id).toBe(true);
      expect((l.min === undefined) !== (l.max === undefined), l.id).toBe(true);
      expect((l.min ?? l.max)!, l.id).toBeGreaterThan(0);
      expect(l.why.length, l.id).toBeGreaterThan(20);
    }
    expect(new Set(LIMITS_FOR_CHECK.map((l) => `${l.id}:${l.metric}`)).size).toBe(LIMITS_FOR_CHECK.length);
  });

  it('ratio floors are regression guards, not targets: each sits at most at 0.75 of the ratio the newest reference run measured', () => {
    // Most cases are slower than their baseline (floors below 1); a batch or the memory store beats
    // the raw INSERT, so their floors may be above 1, but still well under what was measured.
    const dir = join(import.meta.dirname, '..', '..', 'bench', 'results');
    const newest = readdirSync(dir).filter((f) => /^reference-\d{4}-\d{2}-\d{2}[a-z]?\.json$/.test(f)).sort().at(-1)!;
    const results = (JSON.parse(readFileSync(join(dir, newest), 'utf8')) as { results: { id: string; ratio?: number }[] }).results;
    let compared = 0;
    for (const l of LIMITS_FOR_CHECK.filter((x) => x.metric === 'ratio')) {
      const measured = results.find((r) => r.id === l.id)?.ratio;
      if (measured === undefined) {
        expect(l.min!, `${l.id}: not in ${newest}, so it must stay below the baseline`).toBeLessThan(1);
        continue;
      }
      compared++;
      expect(l.min!, `${l.id}: floor vs ${measured.toFixed(2)} measured in ${newest}`).toBeLessThanOrEqual(0.75 * measured);
    }
    expect(compared).toBeGreaterThan(10);
  });
});

describe('formatting', () => {
  it('durations pick a unit and keep three significant digits', () => {
    expect(formatDuration(0.0312)).toBe('31.2 µs');
    expect(formatDuration(1.234)).toBe('1.23 ms');
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(5260)).toBe('5.26 s');
    expect(formatDuration(0.0000421)).toBe('42.1 ns');
  });

  it('rates and ratios', () => {
    expect(formatRate(31_400)).toBe('31.4k');
    expect(formatRate(1_230_000)).toBe('1.23M');
    expect(formatRate(44.5)).toBe('44.5');
    expect(formatRatio(0.5123)).toBe('0.51×');
    expect(formatRatio(12.34)).toBe('12.3×');
    expect(formatRatio(undefined)).toBe('');
  });

  it('renderTable pads columns and right-aligns numeric ones', () => {
    const out = renderTable(
      [
        ['case', 'p50'],
        ['a', '1 µs'],
        ['longer', '10 µs'],
      ],
      [false, true],
    );
    expect(out.split('\n')).toEqual(['case      p50', '------  -----', 'a        1 µs', 'longer  10 µs']);
  });

  it('resultTable shows median, rate, per-unit cost and the ratio against the named baseline', () => {
    const rows = attachRatios([
      result('g/base', 0.01, { label: 'raw' }),
      result('g/subject', 2, { label: 'adapter', unitsPerOp: 100, unit: 'row', baselineId: 'g/base' }),
    ]);
    const lines = resultTable(rows).split('\n');
    expect(lines[0]).toMatch(/^case\s+size\s+p50\s+ops\/s\s+per unit\s+ratio\s+vs$/);
    expect(lines[2]).toMatch(/g: raw .* 10\.0 µs .* 100k .* baseline$/);
    expect(lines[3]).toMatch(/g: adapter .* 2\.00 ms .* 500 .* 20\.0 µs\/row .* 0\.50× .* raw$/);
  });

  it('resultTable names the baseline size when it differs (growth ratios)', () => {
    const rows = attachRatios([
      result('g/small', 0.05, { label: 'append', size: '10k rows' }),
      result('g/large', 0.05, { label: 'append', size: '1M rows', baselineId: 'g/small' }),
    ]);
    expect(resultTable(rows).split('\n')[3]).toMatch(/1\.00× {2}append @ 10k rows$/);
  });
});

describe('arguments and plan', () => {
  it('parses every option, both spellings', () => {
    expect(parseArgs([])).toEqual({ mode: 'full', check: false, help: false });
    expect(parseArgs(['--smoke', '--check', '--filter', 'append', '--json', 'out.json'])).toEqual({
      mode: 'smoke',
      check: true,
      help: false,
      filter: 'append',
      json: 'out.json',
    });
    expect(parseArgs(['--filter=prune', '--json=x.json'])).toMatchObject({ filter: 'prune', json: 'x.json' });
  });

  it('rejects unknown arguments and missing values', () => {
    expect(() => parseArgs(['--fast'])).toThrow(/unknown argument --fast/);
    expect(() => parseArgs(['--filter'])).toThrow(/needs a value/);
    expect(() => parseArgs(['--json', '--smoke'])).toThrow(/needs a value/);
    expect(() => parseArgs(['--filter='])).toThrow(/non-empty/);
  });

  it('filters by substring of the group name', () => {
    expect(groupSelected('append-size', 'append')).toBe(true);
    expect(groupSelected('prune-cap', 'append')).toBe(false);
    expect(groupSelected('memory', undefined)).toBe(true);
  });

  it('names result files by a filesystem-safe ISO timestamp', () => {
    expect(timestampFileName(new Date(Date.UTC(2026, 11, 2, 16, 30, 5, 123)))).toBe('2026-12-02T16-30-05Z.json');
  });

  it('shortCount labels sizes', () => {
    expect(shortCount(1_000_000)).toBe('1M');
    expect(shortCount(10_000)).toBe('10k');
    expect(shortCount(1_500)).toBe('1500');
    expect(shortCount(10)).toBe('10');
  });

  it('smoke keeps the sizes the floors refer to', () => {
    // Floors use ids at these sizes; a smoke plan without them would turn every such check into "missing".
    const smoke = PLANS.smoke;
    expect(smoke.appendWatchers).toEqual(PLANS.full.appendWatchers);
    expect(smoke.changesSinceSizes).toContain(1_000_000);
    expect(smoke.appendSizes).toContain(1_000_000);
  });
});

describe('changesSince baseline mapping', () => {
  it('maps a row to the event shape: absent optionals left out, payload parsed', () => {
    const row = {
      sequence: 7,
      dedupe_key: null,
      session_key: 'agent:main:x',
      agent_id: 'main',
      session_id: null,
      kind: 'human_direct_message',
      actor_type: 'human',
      actor_id: 'agent:main:y',
      run_id: null,
      occurred_at: 1,
      recorded_at: 2,
      summary: 's',
      payload_json: '{"channel":"web"}',
    };
    expect(toPlainEvent(row)).toEqual({
      sequence: 7,
      sessionKey: 'agent:main:x',
      agentId: 'main',
      kind: 'human_direct_message',
      actorType: 'human',
      occurredAt: 1,
      recordedAt: 2,
      summary: 's',
      actorId: 'agent:main:y',
      payload: { channel: 'web' },
    });
  });
});

describe('emptyWal (the untimed setup before a timed write)', () => {
  it('checkpoints the WAL and restarts it with one frame, so the timed write neither checkpoints the setup nor restarts the WAL', () => {
    const ws = new Workspace();
    const db = openRaw(ws.file('wal'));
    try {
      db.pragma('wal_autocheckpoint = 0'); // so only the calls below move pages out of the WAL
      loadEvents(db, { count: 500, occurredAt: T0 });
      // [busy, frames in the WAL, frames checkpointed]: without emptyWal the setup's frames are all there.
      const frames = () => db.prepare('PRAGMA wal_checkpoint(PASSIVE)').raw(true).get() as number[];
      expect(frames()[1]).toBeGreaterThan(10);
      emptyWal(db);
      // Restarted: the WAL holds only emptyWal's own one-page write.
      expect(frames()[1]).toBe(1);
    } finally {
      db.close();
      ws.dispose();
    }
  });
});
