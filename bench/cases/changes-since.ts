import type Database from 'better-sqlite3';
import { AGENT, EVENTS, HOT_EVENTS, HOT_SESSION, assertSamePragmas, hotSequences, openAdapter, openRaw } from '../lib/fixtures.js';
import { measureInterleaved, type TaskSpec } from '../lib/measure.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';

const LIMITS = [200, 1] as const;

/** Column order of the adapter's page query; the baseline reads the same columns. */
const BASELINE_SQL = `SELECT sequence, dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json FROM ${EVENTS} WHERE agent_id = ? AND session_key = ? AND sequence > ? ORDER BY sequence LIMIT ?`;

interface Row {
  sequence: number;
  dedupe_key: string | null;
  session_key: string;
  agent_id: string;
  session_id: string | null;
  kind: string;
  actor_type: string;
  actor_id: string | null;
  run_id: string | null;
  occurred_at: number;
  recorded_at: number;
  summary: string;
  payload_json: string | null;
}

/**
 * The least work that hands a caller the same events: field names as in StateEvent, absent
 * optionals left out, the payload parsed. Plain numbers (the driver default), no freezing.
 */
export function toPlainEvent(r: Row): Record<string, unknown> {
  const e: Record<string, unknown> = {
    sequence: r.sequence,
    sessionKey: r.session_key,
    agentId: r.agent_id,
    kind: r.kind,
    actorType: r.actor_type,
    occurredAt: r.occurred_at,
    recordedAt: r.recorded_at,
    summary: r.summary,
  };
  if (r.session_id !== null) e.sessionId = r.session_id;
  if (r.actor_id !== null) e.actorId = r.actor_id;
  if (r.run_id !== null) e.runId = r.run_id;
  if (r.payload_json !== null) e.payload = JSON.parse(r.payload_json);
  if (r.dedupe_key !== null) e.dedupeKey = r.dedupe_key;
  return e;
}

/**
 * changesSince: one page of the hot session (400 events spread evenly through the log, so its
 * rows sit on different pages) from a `since` that leaves 300 after it: limit 200 returns a full
 * truncated page at every size, limit 1 shows the fixed cost per call. Baseline: the raw indexed
 * range query the task names, on its own connection to the same file, rows mapped to plain
 * objects. The adapter additionally reads the head and the lowest retained sequence in one read
 * transaction (R30-R33), decodes integers as checked bigints and freezes each event.
 */
export const changesSinceGroup: BenchGroup = {
  group: 'changes-since',
  run(ctx: CaseContext): CaseResult[] {
    const { plan } = ctx;
    const results: CaseResult[] = [];
    for (const size of plan.changesSinceSizes) {
      const template = ctx.eventLog(size);
      const s = shortCount(size);
      // Read-only use of the template: maxRows above its size, so opening it prunes nothing.
      const store = openAdapter(template, { maxRows: 100 * size });
      const raw: Database.Database = openRaw(template);
      try {
        assertSamePragmas(store, raw);
        const hot = hotSequences(raw);
        if (hot.length !== HOT_EVENTS) throw new Error(`hot session has ${hot.length} events, expected ${HOT_EVENTS}`);
        const since = hot[99]!;
        const page = raw.prepare(BASELINE_SQL);
        const tasks: TaskSpec[] = [];
        for (const limit of LIMITS) {
          const request = { sessionKey: HOT_SESSION, agentId: AGENT, since, limit };
          // Same rows, same fields: the comparison is only fair if the two answers are equal.
          const adapterEvents = store.changesSince(request).stateChanges.events;
          const rawEvents = (page.all(AGENT, HOT_SESSION, since, limit) as Row[]).map(toPlainEvent);
          if (adapterEvents.length !== limit || JSON.stringify(adapterEvents) !== JSON.stringify(rawEvents)) {
            throw new Error(`changesSince ${s} limit ${limit}: adapter and baseline return different rows`);
          }
          tasks.push({
            name: `sqlite-${limit}`,
            fn: () => {
              if (store.changesSince(request).stateChanges.events.length !== limit) throw new Error('short page');
            },
          });
          tasks.push({
            name: `raw-${limit}`,
            fn: () => {
              const rows = (page.all(AGENT, HOT_SESSION, since, limit) as Row[]).map(toPlainEvent);
              if (rows.length !== limit) throw new Error('short page');
            },
          });
        }
        const got = measureInterleaved(tasks, plan.fast, (m) => ctx.progress(`changes-since ${s} events: ${m}`));
        for (const limit of LIMITS) {
          const common = { group: 'changes-since', size: `${s} events`, unit: 'read', unitsPerOp: 1 };
          results.push(
            makeResult({ ...common, id: `changes-since/raw-limit${limit}@${s}`, label: `raw range query, limit ${limit} (baseline)`, latency: got.get(`raw-${limit}`)! }),
            makeResult({
              ...common,
              id: `changes-since/sqlite-limit${limit}@${s}`,
              label: `sqlite adapter changesSince, limit ${limit}`,
              latency: got.get(`sqlite-${limit}`)!,
              baselineId: `changes-since/raw-limit${limit}@${s}`,
            }),
          );
        }
      } finally {
        store.close();
        raw.close();
      }
    }
    return results;
  },
};
