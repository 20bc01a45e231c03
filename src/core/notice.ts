import type { Notice } from '../../spec/index.js';
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
