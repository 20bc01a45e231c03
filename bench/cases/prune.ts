import type Database from 'better-sqlite3';
import { LIMITS } from '../../spec/index.js';
import { sqliteHandle } from '../../src/sqlite/sqlite-store.js';
import { DAY_MS, EVENTS, T0, assertSamePragmas, countRows, emptyWal, loadEvents, openAdapter, openRaw } from '../lib/fixtures.js';
import { measureInterleaved, type TaskSpec } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

const FRESH = T0 - 60 * 60 * 1000;
const AGED = T0 - 31 * DAY_MS;

interface PruneCase {
  group: 'prune-cap' | 'prune-age';
  /** Rows the log holds between prunes. */
  kept: number;
  /** occurredAt of the rows loaded before each prune (the ones it removes). */
  loadAt: number;
  describe: string;
  /** The baseline: delete the same rows with one statement in one transaction. */
  baseline: (raw: Database.Database, removed: number) => () => void;
}

const CASES: PruneCase[] = [
  {
    // R41: a log at the default 50,000-row cap receives `removed` new rows; prune drops as many of the oldest.
    group: 'prune-cap',
    kept: LIMITS.maxRows,
    loadAt: FRESH,
    describe: 'over the 50,000-row cap',
    baseline: (raw, removed) => {
      const cut = raw.prepare(`SELECT sequence FROM ${EVENTS} ORDER BY sequence LIMIT 1 OFFSET ?`).pluck();
      const del = raw.prepare(`DELETE FROM ${EVENTS} WHERE sequence <= ?`);
      const tx = raw.transaction(() => {
        const changes = del.run(cut.get(removed - 1)).changes;
        if (changes !== removed) throw new Error(`baseline removed ${changes}, expected ${removed}`);
      });
      return () => tx.immediate();
    },
  },
  {
    // R40: a log of 10k fresh rows receives `removed` rows older than 30 days; prune drops them.
    group: 'prune-age',
    kept: 10_000,
    loadAt: AGED,
    describe: 'older than 30 days',
    baseline: (raw, removed) => {
      const del = raw.prepare(`DELETE FROM ${EVENTS} WHERE occurred_at < ?`);
      const tx = raw.transaction(() => {
        const changes = del.run(T0 - LIMITS.retentionMs).changes;
        if (changes !== removed) throw new Error(`baseline removed ${changes}, expected ${removed}`);
      });
      return () => tx.immediate();
    },
  },
];

/**
 * Pruning cost per row removed. Before each timed prune (untimed) the rows it will remove are
 * appended, spread over the log's 10k sessions, so every prune also raises up to that many
 * pruned watermarks (R42). Baseline: the bare DELETE of the same rows. Each side appends through
 * its own connection (the adapter's through its handle, with raw SQL: R6 would clamp an aged
 * occurredAt), so both prune with a warm page cache. Until 2026-12-04 the adapter's rows came from
 * a second connection, whose commit reset the adapter's cache before every timed prune but not
 * the baseline's: about a quarter of a 1k-row age prune (bench/phases-drain-prune.ts prices both).
 * Each side empties its WAL after the load (emptyWal): left alone, the 1000-page autocheckpoint
 * fell in the untimed load in some calls and in the timed prune in others, so the 1k-row age
 * baseline took 1.2 ms or 6.5-7 ms per call and the median ratio of the same code moved between
 * 0.39 and 0.53 from run to run (references 2026-12-04d and e). A prune that writes more than
 * 1000 pages itself still checkpoints them in its timed call, as in use.
 * A second connection still checks the row count. The adapter runs with default retention and
 * cap; its fixed clock keeps R43 from pruning inside record.
 */
function pruneGroup(spec: PruneCase): BenchGroup {
  return {
    group: spec.group,
    run(ctx: CaseContext): CaseResult[] {
      const { ws, plan } = ctx;
      const results: CaseResult[] = [];
      const template = ctx.eventLog(spec.kept);
      for (const removed of plan.pruneRemoved) {
        const s = shortCount(removed);
        const adapterPath = ws.copy(template, `${spec.group}-${removed}`);
        const rawPath = ws.copy(template, `${spec.group}-raw-${removed}`);
        const store = openAdapter(adapterPath);
        const own = sqliteHandle(store);
        const side = openRaw(adapterPath);
        const raw = openRaw(rawPath);
        try {
          assertSamePragmas(store, raw);
          if (store.eventCount() !== spec.kept) throw new Error(`${spec.group}: opened with ${store.eventCount()} rows, expected ${spec.kept}`);
          const tasks: TaskSpec[] = [
            {
              name: 'sqlite',
              beforeEach: () => {
                loadEvents(own, { count: removed, occurredAt: spec.loadAt });
                emptyWal(own);
              },
              fn: () => store.prune(),
              afterEach: () => {
                if (store.eventCount() !== spec.kept) throw new Error(`prune left ${store.eventCount()} rows, expected ${spec.kept}`);
              },
            },
            {
              name: 'raw',
              beforeEach: () => {
                loadEvents(raw, { count: removed, occurredAt: spec.loadAt });
                emptyWal(raw);
              },
              fn: spec.baseline(raw, removed),
            },
          ];
          // A prune of 1k rows takes milliseconds: more samples for the same wall time (plan.ts).
          const got = measureInterleaved(tasks, removed <= 1_000 ? plan.heavyShort : plan.heavy, (m) => ctx.progress(`${spec.group} ${s} rows: ${m}`));
          if (countRows(side, EVENTS) !== spec.kept) throw new Error(`${spec.group}: the file holds ${countRows(side, EVENTS)} rows after pruning`);
          const common = { group: spec.group, size: `${s} rows removed`, unit: 'row', unitsPerOp: removed };
          results.push(
            makeResult({ ...common, id: `${spec.group}/raw-delete@${s}`, label: `raw DELETE ${spec.describe} (baseline)`, latency: got.get('raw')! }),
            makeResult({ ...common, id: `${spec.group}/sqlite@${s}`, label: `sqlite adapter prune(), ${spec.describe}`, latency: got.get('sqlite')!, baselineId: `${spec.group}/raw-delete@${s}` }),
          );
        } finally {
          store.close();
          side.close();
          raw.close();
          ws.remove(adapterPath);
          ws.remove(rawPath);
        }
      }
      return results;
    },
  };
}

export const pruneCapGroup = pruneGroup(CASES[0]!);
export const pruneAgeGroup = pruneGroup(CASES[1]!);
