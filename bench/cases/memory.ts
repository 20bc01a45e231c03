import { LIMITS } from '../../spec/index.js';
import { AGENT, T0, appendInput, openAdapter } from '../lib/fixtures.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { slope, summarize } from '../lib/stats.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

const TARGETS = 1_000;

export interface MemorySample {
  appends: number;
  heapUsed: number;
  rss: number;
  external: number;
}

/**
 * memory: heap and RSS of a process that keeps appending through the SQLite adapter (the memory
 * store grows by design and is not measured here). 1k targets, each with one watcher that never
 * drains, so the notice queue fills to 1k slots and then only replaces (R24). The clock moves so
 * that R43's hourly prune runs about four times during the run and R41 keeps the log at the
 * default 50,000-row cap. Heap/RSS are sampled after a forced GC every `memorySampleEvery`
 * appends; the slope (bytes per append, least squares, first sample excluded as warm-up) is what
 * must stay near zero.
 */
export const memoryGroup: BenchGroup = {
  group: 'memory',
  run(ctx: CaseContext): CaseResult[] {
    const { plan, ws } = ctx;
    const total = plan.memoryAppends;
    const every = plan.memorySampleEvery;
    const step = Math.max(1, Math.floor(LIMITS.pruneIntervalMs / (total / 4)));
    let t = T0;
    const path = ws.file('memory');
    const store = openAdapter(path, { now: () => t });
    const series: MemorySample[] = [];
    const blockMsPerAppend: number[] = [];
    try {
      const inputs = Array.from({ length: TARGETS }, (_, i) => appendInput(`agent:main:target-${i}`));
      for (let i = 0; i < TARGETS; i++) store.watch({ watcherSessionKey: `agent:main:watcher-${i}`, targetSessionKey: `agent:main:target-${i}`, agentId: AGENT });
      const sample = (appends: number) => {
        ctx.gc();
        const m = process.memoryUsage();
        series.push({ appends, heapUsed: m.heapUsed, rss: m.rss, external: m.external });
      };
      sample(0);
      const started = performance.now();
      for (let done = 0; done < total; ) {
        const n = Math.min(every, total - done);
        const t0 = performance.now();
        for (let j = 0; j < n; j++) {
          t += step;
          if (store.record(inputs[(done + j) % TARGETS]!) === undefined) throw new Error('record stored nothing');
        }
        blockMsPerAppend.push((performance.now() - t0) / n);
        done += n;
        sample(done);
        ctx.progress(`memory: ${shortCount(done)}/${shortCount(total)} appends, heap ${(series.at(-1)!.heapUsed / 2 ** 20).toFixed(1)} MiB, rss ${(series.at(-1)!.rss / 2 ** 20).toFixed(1)} MiB, ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
      // Between the hourly prunes the log may exceed the cap (R43); right after one it may not (R41).
      store.prune();
      if (store.eventCount() > LIMITS.maxRows) throw new Error(`the cap did not hold: ${store.eventCount()} rows after a prune`);
      if (store.pendingNotices('agent:main:watcher-0').length !== 1) throw new Error('watcher-0 should hold one coalesced notice');
    } finally {
      store.close();
      ws.remove(path);
    }
    const warm = series.slice(1);
    const xs = warm.map((s) => s.appends);
    const first = warm[0]!;
    const last = warm[warm.length - 1]!;
    return [
      makeResult({
        id: 'memory/sqlite',
        group: 'memory',
        label: 'sqlite adapter record(), 1k targets × 1 watcher',
        size: `${shortCount(total)} appends`,
        unit: 'append',
        unitsPerOp: 1,
        // One "sample" per block: the mean cost of an append in that block, prunes included.
        latency: summarize(blockMsPerAppend),
        extra: {
          heapSlopeBytesPerAppend: slope(xs, warm.map((s) => s.heapUsed)),
          rssSlopeBytesPerAppend: slope(xs, warm.map((s) => s.rss)),
          heapGrowthBytes: last.heapUsed - first.heapUsed,
          rssGrowthBytes: last.rss - first.rss,
          clockStepMs: step,
        },
        series: series.map((s) => ({ ...s })),
        notes: 'latency here is per block of appends (mean per append in each block), not per call',
      }),
    ];
  },
};
