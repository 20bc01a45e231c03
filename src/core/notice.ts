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

export function makeNotice(
  watcherSessionKey: string,
  targetSessionKey: string,
  targetAgentId: string,
  lastSeenSequence: number,
): Notice {
  return {
    watcherSessionKey,
    targetSessionKey,
    targetAgentId,
    lastSeenSequence,
    contextKey: encodeContextKey(targetAgentId, targetSessionKey),
    wake: isSubagentKey(watcherSessionKey) ? 'next-turn' : 'immediate',
    text: noticeText(targetSessionKey, lastSeenSequence),
  };
}
