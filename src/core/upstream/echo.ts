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
 * U4: a user message our side sent upstream: its text, and how many images it carried. A plain
 * string is a text-only message.
 */
export type OwnMessage = string | { text: string; images?: number };

/** What a source saw upstream (UpstreamTurn's fields). */
export interface EchoCandidate {
  text: string;
  images?: number;
  truncated?: boolean;
}

const TEXT_KEY = 't:';

/**
 * U4: the comparison key of a message: its normal form, or for an image-only message (empty
 * text) its image count. Empty text without images has no key (it is never an echo).
 */
function echoKey(text: string, images: number | undefined): string | undefined {
  const n = normalizeUserText(text);
  if (n.length > 0) return `${TEXT_KEY}${n}`;
  return (images ?? 0) > 0 ? `i:${images}` : undefined;
}

/**
 * U4: the echo set of a session: the keys of its last `window` user messages sent from our side
 * (`ownTexts` is oldest first; only the newest `window` count).
 */
export function ownEchoSet(ownTexts: readonly OwnMessage[], window: number = LIMITS.selfEchoWindow): ReadonlySet<string> {
  const set = new Set<string>();
  const start = Math.max(0, ownTexts.length - window);
  for (let i = start; i < ownTexts.length; i++) {
    const m = ownTexts[i]!;
    const key = typeof m === 'string' ? echoKey(m, 0) : echoKey(m.text, m.images);
    if (key !== undefined) set.add(key);
  }
  return set;
}

/** A text cut by the long-line reader is compared as a prefix, if it is long enough to tell. */
const MIN_PREFIX_CHARS = 1024;

/**
 * U4: an upstream turn is our own echo iff its key is in the echo set. Set semantics: one own
 * message suppresses every upstream copy of it in the window (replays of one prompt are common;
 * counting copies would turn every retry into a human turn). A slash command arrives in its
 * typed form (`/review 12`, see classify.ts), so it compares with what we sent.
 */
export function isSelfEcho(upstream: string | EchoCandidate, echoSet: ReadonlySet<string>): boolean {
  const c = typeof upstream === 'string' ? { text: upstream } : upstream;
  const key = echoKey(c.text, c.images);
  if (key === undefined) return false;
  if (echoSet.has(key)) return true;
  // The length is the text's (its normal form's), not the key's: the `t:` tag does not count. An
  // image key (`i:<count>`) is far shorter than the minimum, so only text keys get here.
  if (c.truncated && key.length - TEXT_KEY.length >= MIN_PREFIX_CHARS) {
    for (const own of echoSet) if (own.startsWith(key)) return true;
  }
  return false;
}
