import Type from 'typebox';
import { LIMITS } from './limits.js';

// R1/R3 (Unicode 17.0 General_Category, frozen here so every implementation rejects the same code
// points whatever its own Unicode tables): no control (Cc), no format character (Cf: bidi controls
// incl. U+061C, zero-width characters, the BOM, soft hyphen, invisible operators, tags), no line
// or paragraph separator (Zl, Zp), anywhere in a key, id or summary. They are invisible or reorder
// what is shown, so a string holding one reads as another string.
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
const FORMAT =
  '\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f' +
  '\\ufeff\\ufff9-\\ufffb\\u{110bd}\\u{110cd}\\u{13430}-\\u{1343f}\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0001}\\u{e0020}-\\u{e007f}';
const SEPARATOR = '\\u2028\\u2029';
const NO_CONTROL = CONTROL + FORMAT + SEPARATOR;
// R1, keys only (they are quoted in the notice a model reads, R23): no space character but U+0020
// (Zs: NBSP, thin, ideographic... look like a space and are not one, so a key read back and
// retyped names another session) and no quotation mark of any script (Unicode Quotation_Mark:
// straight and typographic, guillemets, corner brackets), so nothing in a key can pass for the
// notice's own delimiter.
const OTHER_SPACE = '\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';
const QUOTATION_MARK = '"\'\\u00ab\\u00bb\\u2018-\\u201f\\u2039\\u203a\\u2e42\\u300c-\\u300f\\u301d-\\u301f\\ufe41-\\ufe44\\uff02\\uff07\\uff62\\uff63';
/** The code points R1 excludes from session keys, as a regular-expression class body (flag u). */
export const SESSION_KEY_EXCLUDED = NO_CONTROL + OTHER_SPACE + QUOTATION_MARK;

/** Inclusive code point ranges of a class body written as above (escapes, literals and `-` ranges), merged and sorted. */
function classRanges(body: string): [number, number][] {
  const read = (i: number): [number, number] => {
    if (body.startsWith('\\u{', i)) {
      const end = body.indexOf('}', i);
      return [parseInt(body.slice(i + 3, end), 16), end + 1];
    }
    if (body.startsWith('\\u', i)) return [parseInt(body.slice(i + 2, i + 6), 16), i + 6];
    const cp = body.codePointAt(i)!;
    return [cp, i + String.fromCodePoint(cp).length];
  };
  const ranges: [number, number][] = [];
  for (let i = 0; i < body.length; ) {
    const [from, next] = read(i);
    if (body[next] === '-') {
      const [to, after] = read(next + 1);
      ranges.push([from, to]);
      i = after;
    } else {
      ranges.push([from, from]);
      i = next;
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * R1/R3 as data for implementations in any language (spec/json/excluded-code-points.json):
 * inclusive [first, last] code point ranges, Unicode 17.0. Lone surrogates (U+D800-U+DFFF not
 * in a pair) are refused besides (well-formedness, R1), which no pattern here expresses.
 */
export const EXCLUDED_CODE_POINTS = {
  sessionKey: classRanges(SESSION_KEY_EXCLUDED),
  opaqueIdAndSummary: classRanges(NO_CONTROL),
} as const;

/** R1: a session key. Lone surrogates are rejected by the validator (JSON Schema cannot say it). */
export const SessionKey = Type.String({
  minLength: 1,
  maxLength: LIMITS.keyMaxLength,
  pattern: `^[^${SESSION_KEY_EXCLUDED}]+$`,
  description: 'Session key. Agent-scoped keys look like agent:<agentId>:<rest>; others (global, main) are bare.',
});

/** R1: an agent id: a short token. */
export const AgentId = Type.String({
  minLength: 1,
  maxLength: LIMITS.agentIdMaxLength,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
  description: 'Agent id; together with the session key it names one session.',
});

/** Opaque identifiers (actor ids, run ids, session ids, dedupe keys). */
export const OpaqueId = Type.String({
  minLength: 1,
  maxLength: LIMITS.keyMaxLength,
  pattern: `^[^${NO_CONTROL}]+$`,
});

/** R3: one line of metadata, never message text. */
export const Summary = Type.String({
  minLength: 1,
  maxLength: LIMITS.summaryMaxLength,
  pattern: `^(?=.*\\S)[^${NO_CONTROL}]+$`,
  description: 'One line of metadata (no newline, no control characters), never message text.',
});

/** A short channel / catalog / host token, e.g. telegram, claude, gateway:local. */
export const Token = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
});

/** Sequences: global, positive, safe integers. */
export const Sequence = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** A version or watermark: 0 means "nothing". */
export const Version = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
/** Epoch milliseconds. */
export const EpochMs = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
