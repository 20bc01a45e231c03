import type Database from 'better-sqlite3';
import { SQL } from '../../src/sqlite/sql.js';
import { sqliteHandle } from '../../src/sqlite/sqlite-store.js';
import { AGENT, CURSORS, T0, appendInput, assertSamePragmas, countRows, emptyWal, loadCursors, openAdapter, openRaw } from '../lib/fixtures.js';
import { measureInterleaved, type TaskSpec } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

const ACK =
  `UPDATE ${CURSORS} SET last_seen = notified, notified = max(material, notified), updated_at = ? ` +
  'WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?';
const COUNT_PENDING = `SELECT count(*) FROM ${CURSORS} WHERE material > last_seen`;

interface Pair {
  watcher: string;
  target: string;
}

interface Shape {
  id: string;
  label: (n: number) => string;
  pairs: (n: number) => Pair[];
}

/** 1 watcher x n targets: one drain acks n pairs in one transaction (R27). */
const FAN_IN: Shape = {
  id: 'fan-in',
  label: (n) => `1 watcher × ${shortCount(n)} targets`,
  pairs: (n) => Array.from({ length: n }, (_, i) => ({ watcher: 'agent:main:watcher', target: `agent:main:target-${i}` })),
};

/** n watchers x 1 target: n drains, one pair each, n transactions. */
const FAN_OUT: Shape = {
  id: 'fan-out',
  label: (n) => `${shortCount(n)} watchers × 1 target`,
  pairs: (n) => Array.from({ length: n }, (_, i) => ({ watcher: `agent:main:watcher-${i}`, target: 'agent:main:target' })),
};

/**
 * drain: ack many pending pairs. Untimed before each call, one event per target makes every pair
 * pending; the timed part is the drains that hand out and ack every notice (R27). Baseline: one
 * UPDATE by primary key per pair that does the same cursor arithmetic (L := N, N := max(M, N)),
 * grouped in transactions the way the adapter groups them (one per drain call), on a file in the
 * same state: its own adapter store records the same events before each call, then a checkpoint,
 * and the baseline's UPDATEs run on that store's connection, so each side finds its page cache as
 * its own writes left it (until 2026-12-04 they ran on a second connection, whose cache the
 * store's commits reset before every timed call: a handicap for the baseline only). (Until 2026-12-03 the baseline's file held cursors only and one UPDATE made them pending, so it
 * wrote into a smaller, cleaner file than the adapter's; bench/phases-drain-prune.ts already
 * compared both on files in the same state.)
 */
export const drainGroup: BenchGroup = {
  group: 'drain',
  run(ctx: CaseContext): CaseResult[] {
    const { ws, plan } = ctx;
    const results: CaseResult[] = [];
    for (const shape of [FAN_IN, FAN_OUT]) {
      for (const n of plan.drainPairs) {
        const pairs = shape.pairs(n);
        const watchers = [...new Set(pairs.map((p) => p.watcher))];
        const targets = [...new Set(pairs.map((p) => p.target))];
        const adapterPath = ws.file(`drain-${shape.id}-${n}`);
        const rawPath = ws.file(`drain-raw-${shape.id}-${n}`);
        const store = openAdapter(adapterPath);
        // The baseline's file gets the same cursors and, before each call, the same events.
        const rawSide = openAdapter(rawPath);
        const raw = sqliteHandle(rawSide);
        try {
          assertSamePragmas(store, raw);
          for (const s of [store, rawSide]) {
            for (const p of pairs) if (!s.watch({ watcherSessionKey: p.watcher, targetSessionKey: p.target, agentId: AGENT }).watched) throw new Error('watch refused');
          }
          const ack = raw.prepare(ACK);
          const countPending = raw.prepare(COUNT_PENDING).pluck().safeIntegers(false);
          const ackBatch = raw.transaction((batch: Pair[]) => {
            for (const p of batch) ack.run(T0, p.watcher, p.target, AGENT);
          });
          const byWatcher = watchers.map((w) => pairs.filter((p) => p.watcher === w));

          let drained = 0;
          const tasks: TaskSpec[] = [
            {
              name: 'sqlite',
              beforeEach: () => {
                for (const t of targets) if (store.record(appendInput(t)) === undefined) throw new Error('record stored nothing');
                // The untimed records filled the WAL (one commit each); empty it here so the timed
                // drain pays neither their checkpoint nor the WAL's restart (the baseline's setup
                // does the same).
                emptyWal(sqliteHandle(store));
              },
              fn: () => {
                drained = 0;
                for (const w of watchers) drained += store.drainNotices(w).length;
              },
              afterEach: () => {
                if (drained !== n) throw new Error(`drained ${drained} notices, expected ${n}`);
              },
            },
            {
              name: 'raw',
              beforeEach: () => {
                for (const t of targets) if (rawSide.record(appendInput(t)) === undefined) throw new Error('record stored nothing');
                emptyWal(raw);
              },
              fn: () => {
                for (const batch of byWatcher) ackBatch.immediate(batch);
              },
              afterEach: () => {
                if (countPending.get() !== 0) throw new Error('baseline left pending cursors');
              },
            },
          ];
          const got = measureInterleaved(tasks, plan.heavyShort, (m) => ctx.progress(`drain ${shape.label(n)}: ${m}`));
          const s = shortCount(n);
          const common = { group: 'drain', size: shape.label(n), unit: 'pair', unitsPerOp: n };
          results.push(
            makeResult({ ...common, id: `drain/raw-ack-${shape.id}@${s}`, label: 'raw UPDATE per pair (baseline)', latency: got.get('raw')! }),
            makeResult({ ...common, id: `drain/sqlite-${shape.id}@${s}`, label: 'sqlite adapter drainNotices()', latency: got.get('sqlite')!, baselineId: `drain/raw-ack-${shape.id}@${s}` }),
          );
        } finally {
          store.close();
          rawSide.close(); // and with it the baseline's connection
          ws.remove(adapterPath);
          ws.remove(rawPath);
        }
      }
    }
    return results;
  },
};

const PENDING_WATCHERS = 1_000;
const PENDING = { lastSeen: 1, notified: 2, material: 2, updatedAt: T0 };
const IDLE = { lastSeen: 2, notified: 2, material: 2, updatedAt: T0 };

/**
 * pending: every watcher reads its pending notices from durable state (R20, R26: the cursors are
 * the only source since v1's in-memory queue and restart sweep went, R29), over bulk-loaded
 * cursors spread over 1,000 watchers, all pending. Baseline: the adapter's own per-watcher query
 * (the partial index on pending cursors) run on a raw connection, rows fetched as the adapter
 * fetches them (arrays, bigint integers) and nothing built. (Until 2026-12-04 the baseline built
 * an object per row with plain numbers; once the adapter read arrays, that flattered it.)
 * A last case holds the largest cursor count with only 1% pending: its ratio against the
 * all-pending case of the same pending count shows idle cursors cost the read nothing.
 */
export const pendingGroup: BenchGroup = {
  group: 'pending',
  run(ctx: CaseContext): CaseResult[] {
    const { ws, plan } = ctx;
    const results: CaseResult[] = [];
    const largest = Math.max(...plan.pendingCursors);
    const variants = plan.pendingCursors.map((n) => ({ key: shortCount(n), total: n, pending: n }));
    // Compared with the all-pending case of the same pending count, so only when that one exists.
    if (plan.pendingCursors.includes(largest / 100)) variants.push({ key: `${shortCount(largest)}-1pct`, total: largest, pending: largest / 100 });
    for (const v of variants) {
      const adapterPath = ws.file(`pending-${v.key}`);
      const rawPath = ws.file(`pending-raw-${v.key}`);
      const watchers = Math.min(PENDING_WATCHERS, v.total);
      for (const path of [adapterPath, rawPath]) {
        const db: Database.Database = openRaw(path);
        try {
          loadCursors(db, { count: v.total - v.pending, watchers, targetPrefix: 'agent:main:idle-', ...IDLE });
          loadCursors(db, { count: v.pending, watchers, ...PENDING });
        } finally {
          db.close();
        }
      }
      ctx.progress(`pending ${v.key}: opening`);
      const store = openAdapter(adapterPath);
      const raw = openRaw(rawPath);
      try {
        assertSamePragmas(store, raw);
        if (countRows(raw, CURSORS) !== v.total) throw new Error('cursor load failed');
        // Read as the adapter reads it: rows as arrays, integers as bigint (open() sets safe integers).
        const rawPending = raw.prepare(SQL.pendingOfWatcher).raw(true).safeIntegers(true);
        const keys = Array.from({ length: watchers }, (_, w) => `agent:main:w${w}`);
        let seen = 0;
        const tasks: TaskSpec[] = [
          {
            name: 'sqlite',
            fn: () => {
              seen = 0;
              for (const k of keys) seen += store.pendingNotices(k).length;
            },
            afterEach: () => {
              if (seen !== v.pending) throw new Error(`pendingNotices found ${seen} notices, expected ${v.pending}`);
            },
          },
          {
            name: 'raw',
            fn: () => {
              seen = 0;
              for (const k of keys) seen += rawPending.all(k).length;
            },
            afterEach: () => {
              if (seen !== v.pending) throw new Error(`baseline found ${seen} rows, expected ${v.pending}`);
            },
          },
        ];
        const got = measureInterleaved(tasks, plan.heavy, (m) => ctx.progress(`pending ${v.key}: ${m}`));
        const onePct = v.pending !== v.total;
        const size = onePct ? `${shortCount(v.total)} cursors, ${shortCount(v.pending)} pending` : `${v.key} cursors, all pending`;
        const common = { group: 'pending', size, unit: 'notice', unitsPerOp: v.pending };
        results.push(
          makeResult({ ...common, id: `pending/raw@${v.key}`, label: 'raw per-watcher pending query (baseline)', latency: got.get('raw')! }),
          makeResult({
            ...common,
            id: `pending/sqlite@${v.key}`,
            label: 'sqlite adapter pendingNotices, every watcher',
            latency: got.get('sqlite')!,
            baselineId: onePct ? `pending/sqlite@${shortCount(v.pending)}` : `pending/raw@${v.key}`,
          }),
        );
      } finally {
        store.close();
        raw.close();
        ws.remove(adapterPath);
        ws.remove(rawPath);
      }
    }
    return results;
  },
};
