import type Database from 'better-sqlite3';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import type { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { AGENT, RAW_INSERT, T0, appendInput, appendRow, assertSamePragmas, countRows, EVENTS, openAdapter, openRaw } from '../lib/fixtures.js';
import { measureInterleaved, type TaskSpec } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

const TARGET = 'agent:main:target';

function watcherKey(i: number): string {
  return `agent:main:watcher-${i}`;
}

/** R9e batch size the target names, and the watcher counts it is measured with. */
const BATCH = 100;
const BATCH_WATCHERS = [0, 10];

/** A batch in which any input stored nothing must not count as fast appends either. */
function mustRecordAll(store: SqliteStore, inputs: ReturnType<typeof appendInput>[]): void {
  const stored = store.recordMany(inputs);
  if (stored.length !== inputs.length || stored.some((e) => e === undefined)) throw new Error('recordMany stored nothing');
}

/** A record that stored nothing (a swallowed storage failure) must not count as a fast append. */
function mustRecord(store: SqliteStore | MemoryStore, input: ReturnType<typeof appendInput>): void {
  if (store.record(input) === undefined) throw new Error('record stored nothing');
}

/**
 * append: one event per call. Baseline: a raw single-row INSERT into the adapter's own events
 * table (created by its migration, so same columns and indexes), autocommit so the INSERT is its
 * own transaction, with the adapter's pragmas (checked). That is the physical limit of "make one
 * event durable" in this file format; the adapter additionally validates, reads the target's
 * cursors, upserts the head and writes one cursor per watcher, all in one
 * IMMEDIATE transaction.
 */
export const appendGroup: BenchGroup = {
  group: 'append',
  run(ctx: CaseContext): CaseResult[] {
    const { ws, plan } = ctx;
    const closers: (() => void)[] = [];
    try {
      const rawPath = ws.file('append-raw');
      const raw = openRaw(rawPath);
      closers.push(() => raw.close());
      const insert = raw.prepare(RAW_INSERT);
      const row = appendRow(TARGET);

      const tasks: TaskSpec[] = [{ name: 'raw', fn: () => void insert.run(...row) }];
      const stores: { w: number; store: SqliteStore }[] = [];
      const input = appendInput(TARGET);
      for (const w of plan.appendWatchers) {
        const store = openAdapter(ws.file(`append-${w}w`));
        closers.push(() => store.close());
        if (w === 0) assertSamePragmas(store, raw);
        for (let i = 0; i < w; i++) {
          if (!store.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: AGENT }).watched) throw new Error('watch refused');
        }
        tasks.push({ name: `sqlite-${w}`, fn: () => mustRecord(store, input) });
        stores.push({ w, store });
      }
      // R9e: batches of BATCH inputs in one transaction (one commit) per call, with 0 and 10 watchers.
      const batch = Array.from({ length: BATCH }, () => input);
      for (const w of BATCH_WATCHERS) {
        const store = openAdapter(ws.file(`append-batch-${w}w`));
        closers.push(() => store.close());
        for (let i = 0; i < w; i++) {
          if (!store.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: AGENT }).watched) throw new Error('watch refused');
        }
        tasks.push({ name: `batch-${w}`, fn: () => mustRecordAll(store, batch) });
      }
      // The reference store grows by design: a fresh one per round keeps rounds comparable.
      const freshMemory = (watchers: number) => {
        const m = createMemoryStore({ now: () => T0 });
        for (let i = 0; i < watchers; i++) m.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: AGENT });
        return m;
      };
      let memory = freshMemory(0);
      let memory1 = freshMemory(1);
      tasks.push({ name: 'memory', fn: () => mustRecord(memory, input), beforeRound: () => void (memory = freshMemory(0)) });
      tasks.push({ name: 'memory-1', fn: () => mustRecord(memory1, input), beforeRound: () => void (memory1 = freshMemory(1)) });
      // The same store fed distinct inputs: 5,000 sessions, a summary and a payload counter of their
      // own per call, so no answer a store or validator might remember comes back (the cases above
      // repeat one input).
      const VARIED = 20_000;
      const varied = Array.from({ length: VARIED }, (_, i) => ({
        ...input,
        sessionKey: `agent:main:varied-${i % 5000}`,
        summary: `human message ${i}`,
        payload: { channel: i % 2 === 0 ? 'web' : 'slack', turns: i + 1 },
      }));
      let memoryVaried = freshMemory(0);
      let next = 0;
      tasks.push({ name: 'memory-varied', fn: () => mustRecord(memoryVaried, varied[next++ % VARIED]!), beforeRound: () => void (memoryVaried = freshMemory(0)) });

      const got = measureInterleaved(tasks, plan.fast, (m) => ctx.progress(`append: ${m}`));
      if (countRows(raw, EVENTS) === 0) throw new Error('baseline inserted nothing');
      // Sanity: the watchers really were notified (R24: one coalesced notice per pair, however many appends).
      for (const { w, store } of stores) {
        const pending = store.pendingNotices(watcherKey(w - 1 < 0 ? 0 : w - 1));
        if (pending.length !== (w > 0 ? 1 : 0)) throw new Error(`${w} watchers: expected ${w > 0 ? 1 : 0} pending notice, found ${pending.length}`);
      }
      const results: CaseResult[] = [
        makeResult({ id: 'append/raw-insert', group: 'append', label: 'raw INSERT, autocommit (baseline)', size: 'fresh table', unit: 'append', unitsPerOp: 1, latency: got.get('raw')! }),
      ];
      for (const w of plan.appendWatchers) {
        results.push(
          makeResult({
            id: `append/sqlite@${w}w`,
            group: 'append',
            label: 'sqlite adapter record()',
            size: `${w} watcher${w === 1 ? '' : 's'}`,
            unit: 'append',
            unitsPerOp: 1,
            latency: got.get(`sqlite-${w}`)!,
            baselineId: 'append/raw-insert',
          }),
        );
      }
      for (const w of BATCH_WATCHERS) {
        results.push(
          makeResult({
            id: `append/sqlite-batch${BATCH}@${w}w`,
            group: 'append',
            label: `sqlite adapter recordMany(), batches of ${BATCH}`,
            size: `${w} watcher${w === 1 ? '' : 's'}`,
            unit: 'append',
            unitsPerOp: BATCH,
            latency: got.get(`batch-${w}`)!,
            baselineId: 'append/raw-insert',
          }),
        );
      }
      results.push(
        makeResult({ id: 'append/memory@0w', group: 'append', label: 'memory store record()', size: '0 watchers', unit: 'append', unitsPerOp: 1, latency: got.get('memory')!, baselineId: 'append/raw-insert' }),
        makeResult({ id: 'append/memory@1w', group: 'append', label: 'memory store record()', size: '1 watcher', unit: 'append', unitsPerOp: 1, latency: got.get('memory-1')!, baselineId: 'append/raw-insert' }),
        makeResult({ id: 'append/memory-varied@0w', group: 'append', label: 'memory store record(), distinct inputs', size: '0 watchers, 5k sessions', unit: 'append', unitsPerOp: 1, latency: got.get('memory-varied')!, baselineId: 'append/raw-insert' }),
      );
      return results;
    } finally {
      for (const close of closers) close();
    }
  },
};

/**
 * append-size: the same append into logs of 10k ... 1M existing rows (over 10k sessions). The
 * ratio is against the smallest size, so ~1 means the cost does not grow with the table (no
 * scan per append). maxRows is raised above the largest log so R41 keeps every row (the cap is
 * measured in prune-cap); the raw INSERT is measured at each size too, to separate SQLite's own
 * B-tree depth from the adapter.
 */
export const appendSizeGroup: BenchGroup = {
  group: 'append-size',
  run(ctx: CaseContext): CaseResult[] {
    const { ws, plan } = ctx;
    const sizes = plan.appendSizes;
    const smallest = shortCount(sizes[0]!);
    const closers: (() => void)[] = [];
    const tasks: TaskSpec[] = [];
    try {
      for (const size of sizes) {
        const template = ctx.eventLog(size);
        const adapterPath = ws.copy(template, `append-size-${size}`);
        const rawPath = ws.copy(template, `append-size-raw-${size}`);
        closers.push(() => ws.remove(adapterPath), () => ws.remove(rawPath));
        const store = openAdapter(adapterPath, { maxRows: 100 * size });
        const raw: Database.Database = openRaw(rawPath);
        closers.unshift(() => store.close(), () => raw.close());
        if (store.eventCount() !== size) throw new Error(`log of ${size} opened with ${store.eventCount()} rows`);
        const insert = raw.prepare(RAW_INSERT);
        // An existing session of the log, so the identity index entry sits among loaded rows.
        const sessionKey = 'agent:main:s42';
        const row = appendRow(sessionKey);
        const input = appendInput(sessionKey);
        tasks.push({ name: `sqlite-${size}`, fn: () => mustRecord(store, input) });
        tasks.push({ name: `raw-${size}`, fn: () => void insert.run(...row) });
      }
      const got = measureInterleaved(tasks, plan.fast, (m) => ctx.progress(`append-size: ${m}`));
      const results: CaseResult[] = [];
      for (const size of sizes) {
        const s = shortCount(size);
        results.push(
          makeResult({
            id: `append-size/sqlite@${s}`,
            group: 'append-size',
            label: 'sqlite adapter record(), 0 watchers',
            size: `${s} rows`,
            unit: 'append',
            unitsPerOp: 1,
            latency: got.get(`sqlite-${size}`)!,
            ...(size === sizes[0] ? {} : { baselineId: `append-size/sqlite@${smallest}` }),
          }),
          makeResult({
            id: `append-size/raw-insert@${s}`,
            group: 'append-size',
            label: 'raw INSERT, autocommit',
            size: `${s} rows`,
            unit: 'append',
            unitsPerOp: 1,
            latency: got.get(`raw-${size}`)!,
            ...(size === sizes[0] ? {} : { baselineId: `append-size/raw-insert@${smallest}` }),
          }),
        );
      }
      return results;
    } finally {
      for (const close of closers) close();
    }
  },
};
