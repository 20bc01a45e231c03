import Type from 'typebox';
import { LIMITS } from './limits.js';

// R1/R3: no C0/C1 control characters, no line or paragraph separator (U+2028, U+2029) and no
// bidirectional controls anywhere in a key, id or summary: they keep notices and summaries one
// line and stop text that renders differently from what it is. Keys also exclude the double
// quote (the notice quotes them).
const NO_CONTROL = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** R1: a session key. Lone surrogates are rejected by the validator (JSON Schema cannot say it). */
export const SessionKey = Type.String({
  minLength: 1,
  maxLength: LIMITS.keyMaxLength,
  pattern: `^[^${NO_CONTROL}"]+$`,
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
