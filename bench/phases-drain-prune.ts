/**
 * Where a drain's, an age prune's and a pending read's time goes:
 * `npx tsx bench/phases-drain-prune.ts [--pairs 1000] [--removed 1000] [--pending 10000] [--quick] [--only <substr>] [--part drain|prune|pending]`.
 *
 * The companion of bench/phases.ts (which does appends) for the two append-work cases that stayed
 * under target longest: drain fan-in (1 watcher × n targets), prune by age, and the pending read
 * (1,000 watchers, as bench/run.ts's pending group). Each line rebuilds part of
 * the adapter's work on raw better-sqlite3 with the adapter's own SQL (exported as SQL from
 * src/sqlite) and safe integers, beside the adapter itself and the baseline bench/run.ts uses,
 * measured in interleaved rounds with the same untimed setup before every call. Differences
 * between neighbouring lines price each step; lines marked "option" price alternatives that were
 * tried and not taken. Diagnostics only: not part of `npm run bench`, no floors.
 */
import type Database from 'better-sqlite3';
import { LIMITS } from '../spec/index.js';
import { compareNotices, noticeText, watcherNoticeMaker } from '../src/core/index.js';
import { SQL } from '../src/sqlite/sql.js';
import { sqliteHandle } from '../src/sqlite/sqlite-store.js';
import { AGENT, DAY_MS, EVENTS, T0, Workspace, appendInput, buildEventLog, emptyWal, loadCursors, loadEvents, openAdapter, openRaw } from './lib/fixtures.js';
import { measureInterleaved, type Budget, type TaskSpec } from './lib/measure.js';
import { formatDuration, renderTable } from './lib/report.js';

const USAGE = 'usage: tsx bench/phases-drain-prune.ts [--pairs N] [--removed N] [--pending N] [--quick] [--rounds N] [--only <substr>] [--part drain|prune|pending]';
const PARTS = ['drain', 'prune', 'pending'] as const;
type Part = (typeof PARTS)[number];
const WATCHER = 'agent:main:watcher';
const CUTOFF = T0 - LIMITS.retentionMs;
const AGED = T0 - 31 * DAY_MS;

interface Options {
  pairs: number;
  removed: number;
  /** Pending cursors over PENDING_WATCHERS watchers. */
  pending: number;
  budget: Budget;
  only?: string;
  /** Only one of the tables. */
  part?: Part;
}

function parse(argv: string[]): Options {
  const out: Options = { pairs: 1000, removed: 1000, pending: 10_000, budget: { rounds: 7, timeMs: 400, iterations: 30, warmupMs: 200, warmupIterations: 10 } };
  const count = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer; ${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--pairs') out.pairs = count(a, argv[++i]);
    else if (a === '--removed') out.removed = count(a, argv[++i]);
    else if (a === '--pending') out.pending = count(a, argv[++i]);
    else if (a === '--quick') out.budget = { rounds: 3, timeMs: 150, iterations: 10, warmupMs: 50, warmupIterations: 5 };
    else if (a === '--rounds') out.budget.rounds = count(a, argv[++i]);
    else if (a === '--only') out.only = argv[++i];
    else if (a === '--part') {
      const part = argv[++i];
      if (!PARTS.includes(part as Part)) throw new Error(`--part takes ${PARTS.join(', ')}; ${USAGE}`);
      out.part = part as Part;
    }
    else throw new Error(`unknown argument ${a}; ${USAGE}`);
  }
  return out;
}

/** One line of a table: a timed call, its untimed setup, and a check that it did the whole job. */
interface Line {
  name: string;
  note: string;
  setup: () => void;
  fn: () => void;
  check: () => void;
}

/**
 * Drain fan-in: one watcher with `n` pending targets. Every line starts from the same state: an
 * event per target (through the adapter, so the cursors are exactly what it writes), then an
 * emptied WAL (emptyWal), as in bench/run.ts's drain group.
 */
function drainLines(ws: Workspace, n: number): { lines: Line[]; close: () => void } {
  const targets = Array.from({ length: n }, (_, i) => `agent:main:target-${i}`);
  const stores: ReturnType<typeof openAdapter>[] = [];
  /** A fresh adapter file holding the watcher's n cursors, with a setup that makes all n pending. */
  const fixture = () => {
    const store = openAdapter(ws.file('drain'));
    stores.push(store);
    for (const t of targets) if (!store.watch({ watcherSessionKey: WATCHER, targetSessionKey: t, agentId: AGENT }).watched) throw new Error('watch refused');
    const db = sqliteHandle(store);
    const pendingCount = db.prepare('SELECT count(*) AS c FROM session_watch_cursors WHERE notified > last_seen');
    return {
      store,
      db,
      setup: () => {
        for (const t of targets) if (store.record(appendInput(t)) === undefined) throw new Error('record stored nothing');
        emptyWal(db);
      },
      check: () => {
        if (Number((pendingCount.get() as { c: unknown }).c) !== 0) throw new Error('a drain line left pending cursors');
      },
    };
  };
  const lines: Line[] = [];

  {
    const f = fixture();
    const ack = f.db.prepare('UPDATE session_watch_cursors SET last_seen = notified, notified = max(material, notified), updated_at = ? WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?');
    const tx = f.db.transaction(() => {
      for (const t of targets) ack.run(T0, WATCHER, t, AGENT);
    });
    lines.push({ name: 'raw UPDATE per pair', note: 'the baseline of bench/run.ts (knows the pairs, reads nothing)', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    const read = f.db.prepare(SQL.pendingOfWatcher);
    const ack = f.db.prepare(SQL.ackPendingOfWatcher);
    const tx = f.db.transaction(() => {
      read.all(WATCHER);
      ack.run(T0, WATCHER);
    });
    lines.push({ name: 'adapter SQL: read pending, one ack UPDATE', note: 'through the pending index: two passes', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    const read = f.db.prepare(SQL.pendingOfWatcher);
    const count = f.db.prepare(SQL.cursorCountOfWatcher);
    const ack = f.db.prepare(SQL.ackPendingOfWatcherOnePass);
    const tx = f.db.transaction(() => {
      read.all(WATCHER);
      count.get(WATCHER);
      ack.run(T0, WATCHER);
    });
    lines.push({ name: '  … counted, then through the watcher index', note: 'one pass: what the adapter runs here (ACK_ONE_PASS_SPREAD)', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  // What the adapter's drain runs: the step-7 read (pending index + one slots lookup per notice,
  // rows as arrays), the count, the one-pass ack, and the notices; then the same with row objects.
  for (const asArrays of [true, false]) {
    const f = fixture();
    const read = f.db.prepare(SQL.pendingOfWatcherToDrain).raw(asArrays);
    const count = f.db.prepare(SQL.cursorCountOfWatcher);
    const ack = f.db.prepare(SQL.ackPendingOfWatcherOnePass);
    const tx = f.db.transaction(() => {
      const rows = read.all(WATCHER) as unknown[];
      const noticeFor = watcherNoticeMaker(WATCHER);
      // Each shape read field by field, as the adapter did (objects) and does (arrays).
      const notices = asArrays
        ? (rows as [string, string, bigint, 'explicit'][]).map(([target, agent, lastSeen, provenance]) => noticeFor(target, agent, Number(lastSeen), provenance))
        : (rows as { target_session_key: string; target_agent_id: string; last_seen: bigint; provenance: 'explicit' }[]).map((r) => noticeFor(r.target_session_key, r.target_agent_id, Number(r.last_seen), r.provenance));
      notices.sort(compareNotices);
      count.get(WATCHER);
      ack.run(T0, WATCHER);
    });
    lines.push(
      asArrays
        ? { name: '  … + slots read, notices built and sorted (R23-R26)', note: 'context key, text, wake per notice: the adapter\'s SQL', setup: f.setup, fn: () => tx.immediate(), check: f.check }
        : { name: '  … rows read as objects instead of arrays', note: 'option: what the drain read until 2026-12-04', setup: f.setup, fn: () => tx.immediate(), check: f.check },
    );
  }
  {
    const f = fixture();
    const read = f.db.prepare(SQL.pendingOfWatcher);
    const ack = f.db.prepare('UPDATE session_watch_cursors SET last_seen = notified, notified = max(material, notified), updated_at = ? WHERE target_agent_id = ? AND target_session_key = ? AND watcher_session_key = ?');
    const tx = f.db.transaction(() => {
      for (const r of read.all(WATCHER) as { target_session_key: string; target_agent_id: string }[]) ack.run(T0, r.target_agent_id, r.target_session_key, WATCHER);
    });
    lines.push({ name: '  … ack by primary key per pair instead', note: 'option: one statement call per notice', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    // Schema step 5's pending index (no N): the read's N > L test visits the table for every row.
    f.db.exec('DROP INDEX session_watch_cursors_pending; CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key, last_seen, provenance) WHERE notified > last_seen');
    const read = f.db.prepare(SQL.pendingOfWatcher);
    const ack = f.db.prepare(SQL.ackPendingOfWatcher);
    const tx = f.db.transaction(() => {
      read.all(WATCHER);
      ack.run(T0, WATCHER);
    });
    lines.push({ name: '  … with step 5\'s pending index (no N)', note: 'what schema step 6 fixed', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    let got = 0;
    lines.push({
      name: 'adapter drainNotices()',
      note: 'the real thing',
      setup: f.setup,
      fn: () => void (got = f.store.drainNotices(WATCHER).length),
      check: () => {
        if (got !== n) throw new Error(`drained ${got}, expected ${n}`);
        f.check();
      },
    });
  }
  return { lines, close: () => stores.forEach((s) => s.close()) };
}

/**
 * Prune by age: a 10k-event log over 10k sessions receives `removed` rows older than the
 * retention before every call, spread over those sessions, so each prune raises up to that many
 * watermarks (R42), as in bench/run.ts's prune-age group.
 */
function pruneLines(ws: Workspace, removed: number): { lines: Line[]; close: () => void } {
  const template = ws.file('prune-template');
  buildEventLog(template, 10_000);
  const dbs: Database.Database[] = [];
  const stores: ReturnType<typeof openAdapter>[] = [];
  const fixture = () => {
    const db = openRaw(ws.copy(template, 'prune'));
    dbs.push(db);
    const count = db.prepare(`SELECT count(*) FROM ${EVENTS}`).pluck();
    return {
      db,
      setup: () => {
        loadEvents(db, { count: removed, occurredAt: AGED });
        emptyWal(db); // as bench/run.ts's prune group
        db.defaultSafeIntegers(true); // as the adapter reads
      },
      check: () => {
        db.defaultSafeIntegers(false);
        if (count.get() !== 10_000) throw new Error('a prune line left aged rows');
      },
    };
  };
  const lines: Line[] = [];
  {
    const f = fixture();
    const del = f.db.prepare(`DELETE FROM ${EVENTS} WHERE occurred_at < ?`);
    const tx = f.db.transaction(() => del.run(CUTOFF));
    lines.push({ name: 'raw DELETE older than 30 days', note: 'the baseline of bench/run.ts', setup: f.setup, fn: () => void tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    // The rows the stamp walks, read to JS and dropped: what finding them costs beside the DELETE.
    const read = f.db.prepare(`SELECT session_key, agent_id, sequence ${SQL.stampAgedWatermarks.replace(/^.* recorded_at (FROM .*) ON CONFLICT .*$/, '$1')}`);
    const del = f.db.prepare(SQL.deleteAged);
    const tx = f.db.transaction(() => {
      read.all(CUTOFF);
      del.run(CUTOFF);
    });
    lines.push({ name: '  … + the stamp\'s read of the rows (no head written)', note: 'walking the rows to remove, newest first', setup: f.setup, fn: () => void tx.immediate(), check: f.check });
  }
  {
    // The floor under any exact stamp: the heads to raise and their values are known before the
    // call (a temp table filled in the untimed setup), so the line pays only one upsert per
    // identity, as the adapter's statement writes them, and the DELETE.
    const f = fixture();
    f.db.exec('CREATE TEMP TABLE known (session_key TEXT, agent_id TEXT, m INTEGER)');
    const fill = f.db.prepare(
      'INSERT INTO temp.known SELECT session_key, agent_id, max(sequence) FROM session_state_events WHERE occurred_at < ? GROUP BY session_key, agent_id',
    );
    const raise = f.db.prepare(
      'INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) SELECT session_key, agent_id, m, m, 0 FROM temp.known WHERE true ' +
        'ON CONFLICT (session_key, agent_id) DO UPDATE SET pruned_max_sequence = excluded.pruned_max_sequence WHERE excluded.pruned_max_sequence > session_state_heads.pruned_max_sequence',
    );
    const del = f.db.prepare(SQL.deleteAged);
    const tx = f.db.transaction(() => {
      raise.run();
      del.run(CUTOFF);
    });
    const setup = () => {
      f.setup();
      f.db.exec('DELETE FROM temp.known');
      fill.run(CUTOFF);
    };
    lines.push({ name: '  … + the head writes alone (heads known)', note: 'a floor: no read, one upsert per identity', setup, fn: () => void tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    const stamp = f.db.prepare(SQL.stampAgedWatermarks);
    const del = f.db.prepare(SQL.deleteAged);
    const tx = f.db.transaction(() => {
      stamp.run(CUTOFF);
      del.run(CUTOFF);
    });
    lines.push({ name: 'adapter SQL: stamp watermarks (R42), DELETE', note: 'each removed row raises its head by upsert', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    const stamp = f.db.prepare(
      'UPDATE session_state_heads SET pruned_max_sequence = g.max_sequence FROM (SELECT agent_id, session_key, max(sequence) AS max_sequence FROM session_state_events ' +
        'INDEXED BY session_state_events_occurred WHERE occurred_at < ? GROUP BY agent_id, session_key) AS g ' +
        'WHERE session_state_heads.agent_id = g.agent_id AND session_state_heads.session_key = g.session_key AND g.max_sequence > session_state_heads.pruned_max_sequence',
    );
    const del = f.db.prepare(SQL.deleteAged);
    const tx = f.db.transaction(() => {
      stamp.run(CUTOFF);
      del.run(CUTOFF);
    });
    lines.push({ name: '  … GROUP BY, then UPDATE … FROM the groups', note: 'option: the stamp up to 2026-12-04 (sort + materialized join)', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    const del = f.db.prepare(`${SQL.deleteAged} RETURNING agent_id, session_key, sequence`).raw();
    const raise = f.db.prepare('UPDATE session_state_heads SET pruned_max_sequence = ? WHERE session_key = ? AND agent_id = ? AND pruned_max_sequence < ?');
    const tx = f.db.transaction(() => {
      const highest = new Map<string, [string, string, bigint]>();
      for (const r of del.all(CUTOFF) as [string, string, bigint][]) {
        const k = `${r[0]}\u0000${r[1]}`;
        const seen = highest.get(k);
        if (seen === undefined || seen[2] < r[2]) highest.set(k, r);
      }
      for (const [agent, session, sequence] of highest.values()) raise.run(sequence, session, agent, sequence);
    });
    lines.push({ name: '  … DELETE RETURNING, highest per identity in JS', note: 'option: one read of the rows instead of two', setup: f.setup, fn: () => tx.immediate(), check: f.check });
  }
  {
    const f = fixture();
    f.db.exec(
      'CREATE TEMP TRIGGER stamp_on_delete AFTER DELETE ON main.session_state_events BEGIN ' +
        'UPDATE session_state_heads SET pruned_max_sequence = old.sequence WHERE session_key = old.session_key AND agent_id = old.agent_id AND pruned_max_sequence < old.sequence; END',
    );
    const del = f.db.prepare(SQL.deleteAged);
    const tx = f.db.transaction(() => del.run(CUTOFF));
    lines.push({ name: '  … a per-row trigger raises the watermark', note: 'option: no separate read', setup: f.setup, fn: () => void tx.immediate(), check: f.check });
  }
  // The adapter, with the rows to remove appended through its own connection (as bench/run.ts
  // times it, and as the baseline appends), then through a second one, whose commit resets the
  // adapter's page cache before every call (how bench/run.ts timed it until 2026-12-04).
  for (const viaOwn of [true, false]) {
    const path = ws.copy(template, viaOwn ? 'prune-adapter' : 'prune-adapter-side');
    const store = openAdapter(path);
    stores.push(store);
    const loader = viaOwn ? sqliteHandle(store) : openRaw(path);
    if (!viaOwn) dbs.push(loader);
    lines.push({
      name: viaOwn ? 'adapter prune()' : '  … rows loaded by a second connection',
      note: viaOwn ? 'the real thing (+ its probes and R44 cursor expiry)' : 'its page cache reset before every call',
      setup: () => {
        loadEvents(loader, { count: removed, occurredAt: AGED });
        emptyWal(loader);
      },
      fn: () => store.prune(),
      check: () => {
        if (store.eventCount() !== 10_000) throw new Error('prune() left aged rows');
      },
    });
  }
  {
    const f = fixture();
    const side = openRaw(f.db.name);
    dbs.push(side);
    const del = f.db.prepare(`DELETE FROM ${EVENTS} WHERE occurred_at < ?`);
    const tx = f.db.transaction(() => del.run(CUTOFF));
    const setup = () => {
      loadEvents(side, { count: removed, occurredAt: AGED });
      emptyWal(side);
      f.db.defaultSafeIntegers(true);
    };
    lines.push({ name: 'raw DELETE, rows loaded by a second connection', note: 'the baseline with a page cache reset before every call', setup, fn: () => void tx.immediate(), check: f.check });
  }
  return { lines, close: () => [...stores, ...dbs].forEach((x) => x.close()) };
}

const PENDING_WATCHERS = 1_000;

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** The context key as src/core built it until 2026-12-04: one table lookup and append per character, the agent id per notice. */
function perCharacterContextKey(agentId: string, targetKey: string): string {
  const hex = (v: string) => {
    let out = '';
    for (let i = 0; i < v.length; i++) out += HEX_BYTE[v.charCodeAt(i)]; // the bench's keys are ASCII
    return out;
  };
  return `session-state:${hex(agentId)}:${hex(targetKey)}`;
}

/**
 * Pending read: `n` pending cursors spread over 1,000 watchers, each watcher's notices read once
 * per call (bench/run.ts's pending group). Reads change nothing, so no setup; each line's check
 * counts what the last call returned.
 */
function pendingLines(ws: Workspace, n: number): { lines: Line[]; close: () => void } {
  const path = ws.file('pending');
  const loader = openRaw(path);
  loadCursors(loader, { count: n, watchers: Math.min(PENDING_WATCHERS, n), lastSeen: 1, notified: 2, material: 2, updatedAt: T0 });
  loader.close();
  const store = openAdapter(path);
  const db = sqliteHandle(store);
  const keys = Array.from({ length: Math.min(PENDING_WATCHERS, n) }, (_, w) => `agent:main:w${w}`);
  const read = db.prepare(SQL.pendingOfWatcher).raw(true).safeIntegers(true);
  let seen = 0;
  const check = () => {
    if (seen !== n) throw new Error(`a pending line saw ${seen} notices, expected ${n}`);
  };
  const line = (name: string, note: string, perWatcher: (key: string) => number): Line => ({
    name,
    note,
    setup: () => {},
    fn: () => {
      seen = 0;
      for (const k of keys) seen += perWatcher(k);
    },
    check,
  });
  type Row = [string, string, bigint, 'explicit'];
  const built = (k: string) => {
    const noticeFor = watcherNoticeMaker(k);
    return (read.all(k) as Row[]).map(([target, agent, lastSeen, provenance]) => noticeFor(target, agent, Number(lastSeen), provenance));
  };
  const lines: Line[] = [
    line('raw pending read per watcher', 'the baseline of bench/run.ts (arrays, bigint)', (k) => read.all(k).length),
    line('  … + each notice built', 'context key, text, wake (watcherNoticeMaker)', (k) => built(k).length),
    line('  … + sorted (R26)', 'code-unit order, in JS', (k) => built(k).sort(compareNotices).length),
    line('adapter pendingNotices()', 'also: key validation, row checks (R9d), the guard', (k) => store.pendingNotices(k).length),
    line('  … context keys one character at a time', 'option: the encoder until 2026-12-04', (k) => {
      // Built by hand with the same fields; the bench's watchers are not sub-agents and their cursors explicit (R25: immediate).
      return (read.all(k) as Row[])
        .map(([target, agent, lastSeen]) => {
          const l = Number(lastSeen);
          return { watcherSessionKey: k, targetSessionKey: target, targetAgentId: agent, lastSeenSequence: l, contextKey: perCharacterContextKey(agent, target), wake: 'immediate', text: noticeText(target, l) };
        })
        .sort(compareNotices).length;
    }),
  ];
  return { lines, close: () => store.close() };
}

function measure(title: string, lines: Line[], budget: Budget, only: string | undefined): string {
  // The first line is the baseline every other line is quoted against, so it always runs.
  const chosen = lines.filter((l, i) => i === 0 || only === undefined || l.name.includes(only));
  const tasks: TaskSpec[] = chosen.map((l) => ({ name: l.name, fn: l.fn, beforeEach: l.setup, afterEach: l.check }));
  const got = measureInterleaved(tasks, budget, (m) => process.stderr.write(`${title}: ${m}\n`));
  const base = got.get(chosen[0]!.name)!.p50Ms;
  const table: string[][] = [[title, 'p50 per call', 'baseline/this', 'note']];
  for (const l of chosen) {
    const p50 = got.get(l.name)!.p50Ms;
    table.push([l.name, formatDuration(p50), (base / p50).toFixed(2), l.note]);
  }
  return renderTable(table, [false, true, true, false]);
}

function main(): void {
  const { pairs, removed, pending, budget, only, part } = parse(process.argv.slice(2));
  const ws = new Workspace();
  const closers: (() => void)[] = [];
  try {
    if (part === undefined || part === 'drain') {
      const drain = drainLines(ws, pairs);
      closers.push(drain.close);
      process.stdout.write(`${measure(`drain, 1 watcher × ${pairs} targets`, drain.lines, budget, only)}\n\n`);
    }
    if (part === undefined || part === 'prune') {
      const prune = pruneLines(ws, removed);
      closers.push(prune.close);
      process.stdout.write(`${measure(`prune by age, ${removed} rows of 10k sessions`, prune.lines, budget, only)}\n\n`);
    }
    if (part === undefined || part === 'pending') {
      const pendingRead = pendingLines(ws, pending);
      closers.push(pendingRead.close);
      process.stdout.write(`${measure(`pending read, ${pending} notices over ${Math.min(PENDING_WATCHERS, pending)} watchers`, pendingRead.lines, budget, only)}\n`);
    }
  } finally {
    for (const close of closers) close();
    ws.dispose();
  }
}

main();
