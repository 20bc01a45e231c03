import { LIMITS, SESSION_KEY_EXCLUDED } from '../../spec/index.js';
/**
 * R1, R13, R24, R25: session-key grammar and the notice context key.
 * Agent-scoped keys are `agent:<agentId>:<rest>`; anything else (`global`, `main`) is bare:
 * it gets the log and changesSince but no cursors and no notices, because a bare key names
 * one session per agent and a notice to it could be drained by the wrong agent.
 */

export interface AgentScopedKey {
  agentId: string;
  rest: string;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Parses `agent:<agentId>:<rest>`; `agent` is literal lowercase, agentId a valid agent id (R1), rest non-empty. */
export function parseAgentScopedKey(key: string): AgentScopedKey | undefined {
  if (!key.startsWith('agent:')) return undefined;
  const second = key.indexOf(':', 6);
  if (second <= 6) return undefined;
  const agentId = key.slice(6, second);
  const rest = key.slice(second + 1);
  if (rest.length === 0 || !AGENT_ID.test(agentId)) return undefined;
  return { agentId, rest };
}

/** Remembered answers are capped: a store sees a few thousand live keys, not millions. */
const MEMO_LIMIT = 1024;

/** Keys known to be agent-scoped: R11/R13 ask it for every watcher of every material event. */
const agentScoped = new Set<string>();

export function isAgentScopedKey(key: string): boolean {
  if (agentScoped.has(key)) return true;
  if (parseAgentScopedKey(key) === undefined) return false;
  if (agentScoped.size >= MEMO_LIMIT) agentScoped.clear();
  agentScoped.add(key);
  return true;
}

/** R25: sub-agent watchers are not woken; they see the notice on their next turn. */
export function isSubagentKey(key: string): boolean {
  const parsed = parseAgentScopedKey(key);
  return parsed !== undefined && parsed.rest.startsWith('subagent:');
}

/** R1: lone UTF-16 surrogates are rejected, since drivers bind them as U+FFFD and distinct keys would collide. */
export function isWellFormed(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}

const CONTEXT_PREFIX = 'session-state:';

// UTF-8 by hand: TextEncoder/TextDecoder are host APIs, and src/core sees no host (purity).
function utf8Bytes(value: string): number[] {
  const out: number[] = [];
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF, no truncation. */
function decodeUtf8Strict(bytes: readonly number[]): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    let need: number;
    let cp: number;
    let min: number;
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) [need, cp, min] = [1, b & 0x1f, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, cp, min] = [2, b & 0x0f, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, cp, min] = [3, b & 0x07, 0x10000];
    else return undefined;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}

const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

// Every ASCII pair's four hex digits, built on first use (16,384 strings): a context key is built
// per notice (R24), keys are mostly ASCII, and one lookup per two characters halves the string
// appends, which were most of a pending read's time beyond SQL (bench/phases.ts).
let asciiPairHex: readonly string[] | undefined;

function asciiPairTable(): readonly string[] {
  const table = new Array<string>(0x80 * 0x80);
  for (let a = 0; a < 0x80; a++) for (let b = 0; b < 0x80; b++) table[(a << 7) | b] = HEX_BYTE[a]! + HEX_BYTE[b]!;
  return table;
}

function toHex(value: string): string {
  const pairs = (asciiPairHex ??= asciiPairTable());
  const n = value.length;
  let out = '';
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const a = value.charCodeAt(i);
    const b = value.charCodeAt(i + 1);
    if ((a | b) >= 0x80) break;
    out += pairs[(a << 7) | b];
  }
  if (i === n) return out;
  const last = value.charCodeAt(i);
  if (i + 1 === n && last < 0x80) return out + HEX_BYTE[last]!;
  // Everything before i was ASCII pairs, so i is never inside a surrogate pair.
  return out + utf8Bytes(value.slice(i)).map((b) => HEX_BYTE[b]).join('');
}

function fromHex(hex: string): string | undefined {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-f]+$/.test(hex)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < hex.length; i += 2) bytes.push(parseInt(hex.slice(i, i + 2), 16));
  return decodeUtf8Strict(bytes);
}

/** R24's key up to the target key: `session-state:<hex(utf8 agentId)>:`. */
function contextKeyHead(targetAgentId: string): string {
  return `${CONTEXT_PREFIX}${toHex(targetAgentId)}:`;
}

/** R24: `session-state:<hex(utf8 agentId)>:<hex(utf8 targetKey)>`, one queue slot per watcher/target pair. */
export function encodeContextKey(targetAgentId: string, targetSessionKey: string): string {
  return contextKeyHead(targetAgentId) + toHex(targetSessionKey);
}

/**
 * encodeContextKey for many notices in a row (one watcher's pending read or drain): the head is
 * kept while the agent id repeats, as it mostly does. Same output.
 */
export function contextKeyEncoder(): (targetAgentId: string, targetSessionKey: string) => string {
  let agentId: string | undefined;
  let head = '';
  return (targetAgentId, targetSessionKey) => {
    if (targetAgentId !== agentId) {
      agentId = targetAgentId;
      head = contextKeyHead(targetAgentId);
    }
    return head + toHex(targetSessionKey);
  };
}

/** R24: fails closed (undefined) on a wrong prefix, bad hex or bytes that are not strict UTF-8. */
export function decodeContextKey(contextKey: string): { targetAgentId: string; targetSessionKey: string } | undefined {
  const lower = contextKey.toLowerCase();
  if (!lower.startsWith(CONTEXT_PREFIX)) return undefined;
  const parts = lower.slice(CONTEXT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const targetAgentId = fromHex(parts[0]!);
  const targetSessionKey = fromHex(parts[1]!);
  if (targetAgentId === undefined || targetSessionKey === undefined) return undefined;
  return { targetAgentId, targetSessionKey };
}

/** Internal map key of a session identity; keys cannot contain U+0000 (R1), so the join is unambiguous. */
export function identityKey(sessionKey: string, agentId: string): string {
  // Remembered per session key: a store looks the identity of every append up in several Maps, and
  // the same string object each time is hashed once instead of built, flattened and hashed anew.
  const known = identityKeys.get(sessionKey);
  if (known !== undefined && known.agentId === agentId) return known.key;
  const key = `${agentId}\u0000${sessionKey}`;
  if (identityKeys.size >= MEMO_LIMIT) identityKeys.clear();
  identityKeys.set(sessionKey, { agentId, key });
  return key;
}

const identityKeys = new Map<string, { readonly agentId: string; readonly key: string }>();

// Printable ASCII but the two quotation marks: every such string of 1..512 characters is a key R1 allows.
const PLAIN_ASCII_KEY = /^[\x20\x21\x23-\x26\x28-\x7e]{1,512}$/;
const SESSION_KEY_PATTERN = new RegExp(`^[^${SESSION_KEY_EXCLUDED}]+$`, 'u');

/**
 * R1 as a test, for values read back from a shared file (R9d): a key another program wrote must
 * pass the checks `record` and `watch` apply before it reaches a notice text (R23). The common
 * plain-ASCII key is decided without the Unicode pattern.
 */
export function isValidSessionKey(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (PLAIN_ASCII_KEY.test(value)) return true;
  return value.length >= 1 && value.length <= LIMITS.keyMaxLength && isWellFormed(value) && SESSION_KEY_PATTERN.test(value);
}

/** R1's agent id, as a test (R9d). */
export function isValidAgentId(value: unknown): value is string {
  return typeof value === 'string' && AGENT_ID.test(value);
}
