import type { WatchCursor } from '../../spec/index.js';
import type { PairChange, WakeNews } from '../../spec/index.js';
import { NEWS_PAYLOAD, ROUTE_PAYLOAD_MAX_BYTES, routePayload } from '../core/index.js';
import { silentLogger } from '../shared/logger.js';
import { BadRows, checkedPairRow } from '../shared/pending-rows.js';
import { POSITION } from './pending-reads.js';

/** A pair that does not check out only means "read": nothing to log, the read reports a bad row itself. */
const QUIET = new BadRows(silentLogger, 'wake news');

/**
 * R74: a wake that carries its news. The writer knows the state it gives every pair it changes
 * (it read them FOR UPDATE), so the NOTIFY can say it: `w:<hashes>;x:<xid>;<pairs>`, the R73
 * routing prefix, the writing transaction's id (pg_current_xact_id(), filled in by the server in
 * the same statement) and a JSON array of `[watcher, target, agent, L, N, provenance]`. A feed
 * whose position has not seen that transaction hands the pairs out without a read. An older
 * reader sees a payload that is not exactly R73's form, so it reads (R73): nothing breaks.
 */

/** Room kept for the transaction id the server puts between the two halves (xid8: up to 20 digits). */
const XID_ROOM = 20;

/** The two halves of a news payload (the server writes the transaction id between them), or undefined when it does not fit. */
export interface NewsPayloadParts {
  head: string;
  tail: string;
}

const utf8 = new TextEncoder();

/** R74: the payload parts for the pairs a write changed (all of them, in the order written); undefined: too big, send R73's names. */
export function newsPayloadParts(changed: readonly WatchCursor[]): NewsPayloadParts | undefined {
  const route = routePayload(changed.map((c) => c.watcherSessionKey));
  if (route === '*') return undefined;
  const head = `${route};x:`;
  const tail = `;${JSON.stringify(changed.map((c) => [c.watcherSessionKey, c.targetSessionKey, c.targetAgentId, c.lastSeenSequence, c.notifiedSequence, c.provenance]))}`;
  if (utf8.encode(head).length + XID_ROOM + utf8.encode(tail).length > ROUTE_PAYLOAD_MAX_BYTES) return undefined;
  return { head, tail };
}

/**
 * R74: the news a payload carries: the transaction's id as the mark and each pair as a change,
 * checked as a read's rows are (R9d). Undefined for anything else (R73's names, `*`, a payload
 * cut short or garbled, a pair that does not check out): the feed then reads.
 */
export function parseWakeNews(payload: string, table: string): WakeNews | undefined {
  // Every feed of every handle in a process hears the same payload, one after another: parsed once.
  if (payload === memo.payload && table === memo.table) return memo.news;
  const news = parse(payload, table);
  memo = { payload, table, news: news && Object.freeze({ mark: news.mark, changes: Object.freeze(news.changes.map((c) => Object.freeze(c))) as PairChange[] }) };
  return memo.news;
}

let memo: { payload: string | undefined; table: string; news: WakeNews | undefined } = { payload: undefined, table: '', news: undefined };

function parse(payload: string, table: string): WakeNews | undefined {
  const m = NEWS_PAYLOAD.exec(payload);
  if (!m) return undefined;
  let rows: unknown;
  try {
    rows = JSON.parse(m[2]!);
  } catch {
    return undefined;
  }
  if (!Array.isArray(rows) || rows.length === 0) return undefined;
  const changes: PairChange[] = [];
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== 6) return undefined;
    const [watcherSessionKey, targetSessionKey, targetAgentId, lastSeen, notified, provenance] = row as unknown[];
    if (typeof lastSeen !== 'number' || typeof notified !== 'number') return undefined;
    const pair = checkedPairRow(table, { watcherSessionKey, targetSessionKey, targetAgentId, lastSeen, notified, provenance }, QUIET);
    if (!pair) return undefined;
    changes.push(pair);
  }
  return { mark: m[1]!, changes };
}

/**
 * R74: whether a read standing at `position` (a pg_snapshot's text, `xmin:xmax:xip,...`) saw the
 * transaction `mark` (a committed one: its NOTIFY was delivered), by pg_visible_in_snapshot's
 * rule: below xmin, or below xmax and not in progress. A position this store did not make: false,
 * so the news is handed out and the next read settles it.
 */
export function positionCovers(position: string, mark: string): boolean {
  const m = POSITION.exec(position);
  if (!m || !/^\d+$/.test(mark)) return false;
  const xid = BigInt(mark);
  if (xid < BigInt(m[1]!)) return true;
  if (xid >= BigInt(m[2]!)) return false;
  return !(m[3] === '' ? [] : m[3]!.split(',')).some((x) => BigInt(x) === xid);
}
