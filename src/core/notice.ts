import type { Notice } from '../../spec/index.js';
import { ValidationError } from './errors.js';
import { encodeContextKey, isSubagentKey } from './keys.js';

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
): Notice {
  return {
    watcherSessionKey,
    targetSessionKey,
    targetAgentId,
    lastSeenSequence,
    contextKey: precomputed?.contextKey ?? encodeContextKey(targetAgentId, targetSessionKey),
    wake: isSubagentKey(watcherSessionKey) ? 'next-turn' : 'immediate',
    text: precomputed?.text ?? noticeText(targetSessionKey, lastSeenSequence),
  };
}

/**
 * Builds notices about one target for many watchers: the context key is encoded once, and the
 * text once per distinct lastSeen (watchers usually share it). Same output as makeNotice.
 */
export function noticeMaker(targetSessionKey: string, targetAgentId: string): (watcherSessionKey: string, lastSeenSequence: number) => Notice {
  const contextKey = encodeContextKey(targetAgentId, targetSessionKey);
  let cached: { lastSeen: number; parts: { contextKey: string; text: string } } | undefined;
  return (watcherSessionKey, lastSeenSequence) => {
    if (cached?.lastSeen !== lastSeenSequence) cached = { lastSeen: lastSeenSequence, parts: { contextKey, text: noticeText(targetSessionKey, lastSeenSequence) } };
    return makeNotice(watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence, cached.parts);
  };
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
