import { LIMITS } from '../../../spec/index.js';

/**
 * U4: the normal form used to compare upstream user text with what we sent ourselves.
 *  1. Unicode NFC, so composed and decomposed spellings of one text compare equal (macOS file
 *     paths and some terminals hand out NFD).
 *  2. Every maximal run of ECMAScript whitespace (`\s`: Unicode White_Space, line terminators
 *     and U+FEFF) becomes one U+0020 space: terminals, shells and JSON re-encoding reflow
 *     whitespace but never change the words.
 *  3. Leading and trailing spaces are removed.
 * Case is kept on purpose: no transport between us and the upstream changes letter case, so a
 * case difference means a person retyped the text. Folding case would widen suppression, and
 * hiding a real human turn (a watcher acting on stale state) is worse than one extra notice (one
 * cheap reconcile).
 */
export function normalizeUserText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/**
 * U4: the echo set of a session: the normal forms of its last `window` user messages sent from
 * our side (`ownTexts` is oldest first; only the newest `window` count). Empty forms are dropped,
 * so an empty upstream text is never an echo.
 */
export function ownEchoSet(ownTexts: readonly string[], window: number = LIMITS.selfEchoWindow): ReadonlySet<string> {
  const set = new Set<string>();
  const start = Math.max(0, ownTexts.length - window);
  for (let i = start; i < ownTexts.length; i++) {
    const n = normalizeUserText(ownTexts[i]!);
    if (n.length > 0) set.add(n);
  }
  return set;
}

/**
 * U4: an upstream user text is our own echo iff its normal form is in the echo set. Set
 * semantics: one own message suppresses every upstream copy of it in the window (replays of one
 * prompt are common; counting copies would turn every retry into a human turn).
 */
export function isSelfEcho(upstreamText: string, echoSet: ReadonlySet<string>): boolean {
  const n = normalizeUserText(upstreamText);
  return n.length > 0 && echoSet.has(n);
}
