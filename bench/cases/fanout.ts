/**
 * fanout: one process holding many subscribed watchers, one feed subscription per watcher as the
 * MCP server makes them (R60: a signal goes to that watcher's subscribers only). Two figures:
 * - time per commit O(changed): the feed's answer to one commit (as in the feed group: a second
 *   handle acks one pair and records on its target, untimed; the feed's read, grouping and signal,
 *   timed) with 1k and with 10k subscribed watchers on the same file (10k watchers × 10 targets,
 *   every pair pending). The 10k case's ratio against the 1k case is the check: a feed that visited
 *   every subscriber per commit would take ten times as long;
 * - memory flat: JS heap after a forced GC, before and after the run (100k commits in full, 10k in
 *   smoke), sampled ten times for a slope in bytes per commit; the feed keeps one position and its
 *   subscribers, nothing per commit.
 */
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize, slope } from '../lib/stats.js';
import { openAdapter } from '../lib/fixtures.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';
import { buildFeedFile, harnessFeed, reopen, rotation, TARGETS_PER_WATCHER, watchdog } from './feed.js';

const WATCHERS = 10_000;
const SUBSCRIBERS = [1_000, 10_000];
/** Commits per size: each cycle is two (an ack and a record), read by the feed at one wake-up. */
const COMMITS: Record<CaseContext['mode'], number> = { full: 100_000, smoke: 6_000 };
const SAMPLES = 10;

export const fanoutGroup: BenchGroup = {
  group: 'fanout',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const pairs = WATCHERS * TARGETS_PER_WATCHER;
    const path = ctx.ws.file('fanout');
    ctx.progress(`fanout: bulk-loading ${shortCount(pairs)} pending pairs (${shortCount(WATCHERS)} watchers × ${TARGETS_PER_WATCHER})`);
    buildFeedFile(path, pairs);
    const results: CaseResult[] = [];
    const commits = COMMITS[ctx.mode];
    const cycles = commits / 2;
    try {
      for (const subscribers of SUBSCRIBERS) {
        const writer = openAdapter(path);
        const reader = openAdapter(path);
        const turn = rotation(pairs, subscribers);
        const watchers = [...new Set(turn.map((p) => p.watcher))];
        ctx.progress(`fanout ${shortCount(subscribers)}: subscribing ${watchers.length} watchers`);
        const h = await harnessFeed(reader, 'changes', watchers);
        const dog = watchdog(60_000);
        try {
          let n = 0;
          const cycle = async (): Promise<number> => {
            const pair = turn[n++ % turn.length]!;
            reopen(writer, pair.watcher, pair.target);
            const got = h.next(pair.target);
            const t0 = process.hrtime.bigint();
            h.wake();
            await dog.guard(got);
            return Number(process.hrtime.bigint() - t0) / 1e6;
          };
          for (let i = 0; i < Math.min(2_000, cycles / 5); i++) await cycle(); // warm-up: plans, caches, JIT
          const times: number[] = [];
          const xs: number[] = [];
          const heap: number[] = [];
          const sample = (done: number) => {
            ctx.gc();
            xs.push(done * 2);
            heap.push(process.memoryUsage().heapUsed);
          };
          sample(0);
          for (let i = 1; i <= cycles; i++) {
            times.push(await cycle());
            if (i % (cycles / SAMPLES) === 0) {
              sample(i);
              ctx.progress(`fanout ${shortCount(subscribers)}: ${shortCount(i * 2)} commits`);
            }
          }
          if (h.logs() > 0) throw new Error('the feed logged a failure during the benchmark');
          const latency = summarize(times);
          const s = shortCount(subscribers);
          results.push(
            makeResult({
              id: `fanout/sqlite@${s}`,
              group: 'fanout',
              label: 'feed answer to one commit, one subscription per watcher',
              size: `${s} subscribed watchers, ${shortCount(pairs)} pending pairs`,
              unit: 'commit',
              unitsPerOp: 1,
              latency,
              ...(subscribers === SUBSCRIBERS[0] ? {} : { baselineId: `fanout/sqlite@${shortCount(SUBSCRIBERS[0]!)}` }),
              extra: {
                subscribers,
                commits,
                heapBeforeBytes: heap[0]!,
                heapAfterBytes: heap.at(-1)!,
                heapGrowthBytes: heap.at(-1)! - heap[0]!,
                heapSlopeBytesPerCommit: slope(xs, heap),
              },
              series: xs.map((x, i) => ({ commits: x, heapUsed: heap[i]! })),
              notes: `${shortCount(commits)} commits (${shortCount(cycles)} ack + record cycles by a second handle, one feed wake-up each); the time is the wake-up's, the heap after a forced GC`,
            }),
          );
        } finally {
          dog.stop();
          h.feed.close();
          writer.close();
          reader.close();
        }
      }
    } finally {
      ctx.ws.remove(path);
    }
    return results;
  },
};
