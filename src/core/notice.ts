import type { CursorProvenance, Notice, NoticeAck, WakePolicy, WatchCursor } from '../../spec/index.js';
import { isPending } from './cursor.js';
import { ValidationError } from './errors.js';
import { contextKeyEncoder, decodeContextKey, encodeContextKey, identityKey, isSubagentKey } from './keys.js';

/**
 * R23: the exact notice line. Terse (it lands in model prompts), self-contained (names the target),
 * and a function of (target, lastSeen) only, so it is byte-identical while pending (R24).
 */
export function noticeText(targetSessionKey: string, lastSeenSequence: number): string {
  return (
    `Session "${targetSessionKey}" changed (other actor). ` +
    `Reconcile before acting: session_status sessionKey "${targetSessionKey}" changesSince ${lastSeenSequence}.`
  );
}

/**
 * R25: sub-agent watchers and ambient (queue-only, R21b) cursors are never woken: they see the
 * notice on their next turn. Everyone else is woken at once (the runtime may coalesce, R65).
 */
export function wakeFor(watcherSessionKey: string, provenance?: CursorProvenance): WakePolicy {
  return wakeOf(isSubagentKey(watcherSessionKey), provenance);
}

/** R25 once the watcher's kind is known (watcherNoticeMaker asks it once per watcher). */
function wakeOf(subagentWatcher: boolean, provenance: CursorProvenance | undefined): WakePolicy {
  return provenance === 'ambient' || subagentWatcher ? 'next-turn' : 'immediate';
}

/**
 * `precomputed` lets a caller building many notices about one target (planNotifications) encode
 * the context key and the text once instead of per watcher; they must be what this function would
 * compute for the same (target, lastSeen), so the notice stays byte-identical (R23, R24).
 */
export function makeNotice(
  watcherSessionKey: string,
  targetSessionKey: string,
  targetAgentId: string,
  lastSeenSequence: number,
  precomputed?: { contextKey: string; text: string },
  provenance?: CursorProvenance,
): Notice {
  return notice(
    watcherSessionKey,
    targetSessionKey,
    targetAgentId,
    lastSeenSequence,
    precomputed?.contextKey ?? encodeContextKey(targetAgentId, targetSessionKey),
    wakeFor(watcherSessionKey, provenance),
    precomputed?.text ?? noticeText(targetSessionKey, lastSeenSequence),
  );
}

/** The one place a Notice is assembled, so every builder gives the same fields in the same order (R24: byte-identical). */
function notice(watcherSessionKey: string, targetSessionKey: string, targetAgentId: string, lastSeenSequence: number, contextKey: string, wake: WakePolicy, text: string): Notice {
  return { watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence, contextKey, wake, text };
}

/**
 * Builds notices about one target for many watchers: the context key is encoded once, and the
 * text once per distinct lastSeen (watchers usually share it). Same output as makeNotice.
 */
export function noticeMaker(
  targetSessionKey: string,
  targetAgentId: string,
): (watcherSessionKey: string, lastSeenSequence: number, provenance?: CursorProvenance) => Notice {
  const contextKey = encodeContextKey(targetAgentId, targetSessionKey);
  let cached: { lastSeen: number; parts: { contextKey: string; text: string } } | undefined;
  return (watcherSessionKey, lastSeenSequence, provenance) => {
    if (cached?.lastSeen !== lastSeenSequence) cached = { lastSeen: lastSeenSequence, parts: { contextKey, text: noticeText(targetSessionKey, lastSeenSequence) } };
    return makeNotice(watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence, cached.parts, provenance);
  };
}

/**
 * Builds one watcher's notices (a drain or a pending read hands out many for one watcher): R25's
 * sub-agent test of the watcher key runs once, not per notice. Same output as makeNotice.
 */
export function watcherNoticeMaker(
  watcherSessionKey: string,
): (targetSessionKey: string, targetAgentId: string, lastSeenSequence: number, provenance?: CursorProvenance) => Notice {
  const subagent = isSubagentKey(watcherSessionKey);
  const contextKeyOf = contextKeyEncoder();
  return (targetSessionKey, targetAgentId, lastSeenSequence, provenance) =>
    notice(
      watcherSessionKey,
      targetSessionKey,
      targetAgentId,
      lastSeenSequence,
      contextKeyOf(targetAgentId, targetSessionKey),
      wakeOf(subagent, provenance),
      noticeText(targetSessionKey, lastSeenSequence),
    );
}

/** R20, R23-R25: the notice a pending cursor stands for, computed when read (quotes L). */
export function noticeOf(cursor: WatchCursor): Notice {
  return makeNotice(cursor.watcherSessionKey, cursor.targetSessionKey, cursor.targetAgentId, cursor.lastSeenSequence, undefined, cursor.provenance);
}

/**
 * The change feed's view of a pending cursor (src/feed `PendingPair`): the notice's identity, L
 * and wake (R25), without building its text or context key, which a feed read never needs.
 */
export function pendingPairOf(cursor: WatchCursor): Pick<Notice, 'watcherSessionKey' | 'targetSessionKey' | 'targetAgentId' | 'lastSeenSequence' | 'wake'> {
  return {
    watcherSessionKey: cursor.watcherSessionKey,
    targetSessionKey: cursor.targetSessionKey,
    targetAgentId: cursor.targetAgentId,
    lastSeenSequence: cursor.lastSeenSequence,
    wake: wakeFor(cursor.watcherSessionKey, cursor.provenance),
  };
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * R26: (targetSessionKey, targetAgentId) in UTF-16 code-unit order. Sorted here, in JS, by every
 * store: SQL BINARY collation compares UTF-8 bytes, which orders astral characters differently.
 */
export function compareNotices(a: { targetSessionKey: string; targetAgentId: string }, b: { targetSessionKey: string; targetAgentId: string }): number {
  return compareCodeUnits(a.targetSessionKey, b.targetSessionKey) || compareCodeUnits(a.targetAgentId, b.targetAgentId);
}

/**
 * R20, R24, R26: a watcher's pending notices from its durable cursors: one per cursor with N > L
 * (so at most one per pair), in R26 order. The only place notices come from: nothing is queued.
 */
export function pendingNoticesOf(cursors: Iterable<WatchCursor>): Notice[] {
  const out: Notice[] = [];
  for (const c of cursors) if (isPending(c)) out.push(noticeOf(c));
  return out.sort(compareNotices);
}

export interface AckTarget {
  targetSessionKey: string;
  targetAgentId: string;
  /** Every L the caller's notices for this pair quoted. */
  lastSeen: number[];
}

/**
 * R24, R27b: the pairs an ackNotices call names, each once with every L quoted for it. A context
 * key that does not decode strictly is foreign and names nothing. The store reads each pair's
 * cursor once and acks it iff its L is one of these: matching against the state at the call,
 * never against the L an earlier entry of the same call just wrote, acks each pair at most once.
 */
export function ackTargets(notices: readonly NoticeAck[]): AckTarget[] {
  const byPair = new Map<string, AckTarget>();
  for (const n of notices) {
    const target = decodeContextKey(n.contextKey);
    if (!target) continue;
    const key = identityKey(target.targetSessionKey, target.targetAgentId);
    const entry = byPair.get(key);
    if (entry) entry.lastSeen.push(n.lastSeenSequence);
    else byPair.set(key, { ...target, lastSeen: [n.lastSeenSequence] });
  }
  return [...byPair.values()];
}

/**
 * R23b: the opt-in link. `template` is an absolute http(s) URL in which `{sessionKey}` and
 * `{agentId}` are replaced by the target's, percent-encoded (encodeURIComponent), so nothing a key
 * holds can end the link or the line. The template itself is checked when the store is built.
 */
export const NOTICE_LINK_PLACEHOLDERS = ['{sessionKey}', '{agentId}'] as const;

/** R23b: printable ASCII only, no space, no angle bracket, no quote or backslash: the URL sits in `(<…>)`. */
const LINK_TEMPLATE = /^https?:\/\/[\x21-\x7e]+$/;
const LINK_FORBIDDEN = /[<>"\\`]/;

export function validateNoticeLinkTemplate(template: unknown, field = 'noticeLink'): asserts template is string {
  if (typeof template !== 'string') throw new ValidationError(field, 'type', 'must be a URL template string');
  if (template.length > 1024 || !LINK_TEMPLATE.test(template) || LINK_FORBIDDEN.test(template)) {
    throw new ValidationError(field, 'format', 'must be an absolute http(s) URL of printable ASCII without spaces, quotes, backslashes or angle brackets (placeholders {sessionKey} and {agentId})');
  }
}

export function noticeLinkUrl(template: string, targetAgentId: string, targetSessionKey: string): string {
  return template.split('{sessionKey}').map((part) => part.split('{agentId}').join(encodeURIComponent(targetAgentId))).join(encodeURIComponent(targetSessionKey));
}

/** R23b: the notice text with the link segment between "(other actor)." and "Reconcile". */
export function noticeTextWithLink(targetSessionKey: string, targetAgentId: string, lastSeenSequence: number, template: string): string {
  return (
    `Session "${targetSessionKey}" changed (other actor). ` +
    `Open: [session](<${noticeLinkUrl(template, targetAgentId, targetSessionKey)}>) ` +
    `Reconcile before acting: session_status sessionKey "${targetSessionKey}" changesSince ${lastSeenSequence}.`
  );
}

/** R23b: a notice as a store with a link template returns it; without a template, the notice itself. */
export function withNoticeLink(notice: Notice, template: string | undefined): Notice {
  if (template === undefined) return notice;
  return { ...notice, text: noticeTextWithLink(notice.targetSessionKey, notice.targetAgentId, notice.lastSeenSequence, template) };
}

/** R23b for a list a store is about to hand out (its own, new array): without a template, that list itself, not a copy. */
export function withNoticeLinks(notices: Notice[], template: string | undefined): Notice[] {
  return template === undefined ? notices : notices.map((n) => withNoticeLink(n, template));
}

/**
 * R23: the documented grammar, as a parser. A runtime (or a test) recovers exactly the target key,
 * L and the optional link from a notice line; undefined when the line is not a notice. Keys cannot
 * hold a quotation mark (R1), so the first `"` after the key ends it.
 */
const NOTICE_GRAMMAR =
  /^Session "([^"]+)" changed \(other actor\)\. (?:Open: \[session\]\(<([\x21-\x3b\x3d\x3f-\x7e]+)>\) )?Reconcile before acting: session_status sessionKey "([^"]+)" changesSince (0|[1-9][0-9]*)\.$/u;

export function parseNoticeText(text: string): { targetSessionKey: string; lastSeenSequence: number; link?: string } | undefined {
  const m = NOTICE_GRAMMAR.exec(text);
  if (!m || m[1] !== m[3]) return undefined;
  const lastSeenSequence = Number(m[4]);
  if (!Number.isSafeInteger(lastSeenSequence)) return undefined;
  return m[2] === undefined ? { targetSessionKey: m[1]!, lastSeenSequence } : { targetSessionKey: m[1]!, lastSeenSequence, link: m[2] };
}

/**
 * R68: whether a cursor write changed the pair's notice as a change feed sees it: it became
 * pending or stopped being pending, or, pending before and after, it quotes another L (R23: another
 * text) or wakes otherwise (R25). Every other write (M rising under a frozen N, a refreshed
 * `updatedAt`, a provenance change that leaves the wake) leaves the notice as it was.
 */
export function noticeChanged(before: WatchCursor | undefined, after: WatchCursor | undefined): boolean {
  const was = before !== undefined && isPending(before);
  const is = after !== undefined && isPending(after);
  if (was !== is) return true;
  if (!is) return false;
  return (
    before!.lastSeenSequence !== after!.lastSeenSequence ||
    wakeFor(before!.watcherSessionKey, before!.provenance) !== wakeFor(after!.watcherSessionKey, after!.provenance)
  );
}
