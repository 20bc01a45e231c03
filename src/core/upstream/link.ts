import Type from 'typebox';
import { AgentId, OpaqueId, SessionKey, Token } from '../../../spec/index.js';
import { ValidationError } from '../errors.js';
import { isWellFormed, parseAgentScopedKey } from '../keys.js';
import { assertObjectInOrder, snapshotInput } from '../validate.js';
import { sha256Hex } from './hash.js';

/** A JSON value: links, refs and markers are persisted as JSON, so they are plain data. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: the shape of persisted links, refs and markers. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * U9: what the last check of a link concluded, for operators.
 *  new            linked or re-linked by Continue; not checked since
 *  ok             the source was found and read
 *  blocked        the source was found but its cursor cannot advance (U6: a line over the scan limit)
 *  inconclusive   the check could not tell (error, ambiguous answer); neither a miss nor a find (U2)
 *  missing        a miss streak is running (statusDetail says n/3)
 *  record-pending human activity was found but the record did not succeed; the marker waits (U5)
 *  unwatched      the source was found, but nobody watches the session: activity is passed over,
 *                 not recorded (U5 Decision); missing-source detection still runs (U2)
 */
export type LinkState = 'new' | 'ok' | 'blocked' | 'inconclusive' | 'missing' | 'record-pending' | 'unwatched';

/** U1: which session a link is, and where its upstream lives: the fields every view of a link shares. */
export interface LinkIdentity {
  sessionKey: string;
  agentId: string;
  /** The catalog (provider) id, e.g. `claude`; becomes the event channel (U5). */
  catalogId: string;
  /** Where the upstream lives, e.g. `gateway:local` or `node:<nodeId>`. */
  hostId: string;
  /** The native thread (session) id upstream. */
  threadId: string;
  /** Which source adapter checks it, e.g. `claude-jsonl`, `claude-remote`. */
  upstreamKind: string;
}

/**
 * U1: the upstream link of one adopted session, keyed by (sessionKey, agentId).
 * `serial` names this link's incarnation and is never reused (a new one per created link or
 * changed source, U3); `generation` counts Continues of this incarnation and scopes the miss
 * streak (U2); `revision` changes on every write and, with `serial`, is the compare-and-set
 * token that lets a check discard its result when a Continue raced it (U8).
 */
export interface UpstreamLink extends LinkIdentity {
  /** The physical reference the source needs (a file path, a node id, ...). */
  ref: JsonObject;
  /** The source's scan cursor (U6, U7). */
  marker: JsonValue;
  serial: number;
  generation: number;
  revision: number;
  /** U2: consecutive conclusive misses, 0 .. missLimit - 1 while the link lives. */
  missCount: number;
  status: LinkState;
  statusDetail?: string;
  createdAt: number;
  updatedAt: number;
  lastCheckedAt?: number;
}

/** What a catalog Continue tells the monitor (U1, U3). */
export interface ContinueInput extends LinkIdentity {
  ref: JsonObject;
}

// Unknown fields are refused by assertObjectInOrder (field by field, in order), not by the schema.
const ContinueInputSchema = Type.Object({
  sessionKey: SessionKey,
  agentId: AgentId,
  catalogId: Token,
  hostId: Token,
  threadId: OpaqueId,
  upstreamKind: Token,
  ref: Type.Record(Type.String(), Type.Unknown()),
});

/** Largest canonical JSON of a ref or marker we persist; refs are paths and ids, not documents. */
export const MAX_LINK_JSON = 4096;

/** Throws a ValidationError naming `field` unless `value` is plain JSON (finite numbers, plain objects). */
export function assertJson(value: unknown, field: string): asserts value is JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    if (typeof value === 'string' && !isWellFormed(value)) throw new ValidationError(field, 'format', 'contains a lone UTF-16 surrogate');
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ValidationError(field, 'type', 'must be a finite number');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertJson(v, `${field}.${i}`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) assertJson(v, `${field}.${k}`);
    return;
  }
  throw new ValidationError(field, 'type', 'must be plain JSON');
}

/** JSON with object keys sorted at every level, so equal refs compare and hash equal. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`;
}

/** U1, R9: validates a Continue; throws a ValidationError naming the field, before anything is written. */
export function validateContinueInput(raw: unknown): ContinueInput {
  // R9a: one read of the caller's object; everything below and the caller use the copy.
  const input = snapshotInput(raw) as ContinueInput;
  // Also refuses lone surrogates in every string field (R1), sessionKey and threadId included.
  assertObjectInOrder(ContinueInputSchema, input);
  const parsed = parseAgentScopedKey(input.sessionKey);
  if (parsed && parsed.agentId !== input.agentId) {
    throw new ValidationError('agentId', 'mismatch', `agentId "${input.agentId}" does not match the agent of session key "${input.sessionKey}"`);
  }
  assertJson(input.ref, 'ref');
  if (canonicalJson(input.ref).length > MAX_LINK_JSON) throw new ValidationError('ref', 'range', `must serialize to at most ${MAX_LINK_JSON} characters`);
  return input;
}

/** U3: a Continue names the same source iff host, thread, kind and ref are all unchanged. */
export function sameSource(link: UpstreamLink, input: ContinueInput): boolean {
  return (
    link.hostId === input.hostId &&
    link.threadId === input.threadId &&
    link.upstreamKind === input.upstreamKind &&
    canonicalJson(link.ref) === canonicalJson(input.ref)
  );
}

/**
 * U3: Continue on a linked session with the same source: keep the marker (no activity is
 * skipped or replayed) and the incarnation, start a fresh miss streak (new generation).
 */
export function refreshLink(existing: UpstreamLink, input: ContinueInput, now: number): UpstreamLink {
  const next: UpstreamLink = {
    ...existing,
    catalogId: input.catalogId,
    generation: existing.generation + 1,
    revision: existing.revision + 1,
    missCount: 0,
    // A blocked cursor stays blocked (the same bytes are still there); anything else waits for a check.
    status: existing.status === 'blocked' ? 'blocked' : 'new',
    updatedAt: now,
  };
  if (next.status !== 'blocked') delete next.statusDetail;
  return next;
}

/**
 * U3: a new incarnation: a new link, or a Continue that changed the source. The marker is the
 * source's baseline at adoption (its current end), so history before adoption never becomes
 * activity; `serial` must come from the link store's never-reused counter.
 */
export function createLink(input: ContinueInput, baselineMarker: JsonValue, serial: number, now: number, previous?: UpstreamLink): UpstreamLink {
  assertJson(baselineMarker, 'marker');
  if (canonicalJson(baselineMarker).length > MAX_LINK_JSON) throw new ValidationError('marker', 'range', `must serialize to at most ${MAX_LINK_JSON} characters`);
  if (!Number.isSafeInteger(serial) || serial < 1) throw new ValidationError('serial', 'range', 'must be a positive safe integer');
  return {
    sessionKey: input.sessionKey,
    agentId: input.agentId,
    catalogId: input.catalogId,
    hostId: input.hostId,
    threadId: input.threadId,
    upstreamKind: input.upstreamKind,
    ref: structuredJson(input.ref) as JsonObject,
    marker: structuredJson(baselineMarker),
    serial,
    generation: 1,
    revision: (previous?.revision ?? 0) + 1,
    missCount: 0,
    status: 'new',
    createdAt: now,
    updatedAt: now,
  };
}

/** A deep copy of plain JSON (no host structuredClone in the core). */
export function structuredJson(value: JsonValue): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

/** U1: links of one session key held by more than one agent are ambiguous; none of them is checked. */
export function ambiguousKeys(links: readonly Pick<UpstreamLink, 'sessionKey' | 'agentId'>[]): Set<string> {
  const owners = new Map<string, Set<string>>();
  for (const l of links) {
    let s = owners.get(l.sessionKey);
    if (!s) owners.set(l.sessionKey, (s = new Set()));
    s.add(l.agentId);
  }
  return new Set([...owners].filter(([, agents]) => agents.size > 1).map(([key]) => key));
}

/** U8: deterministic check order: catalog, then session key, then agent (UTF-16 code units). */
export function compareLinks(a: UpstreamLink, b: UpstreamLink): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return cmp(a.catalogId, b.catalogId) || cmp(a.sessionKey, b.sessionKey) || cmp(a.agentId, b.agentId);
}

/** 16 hex digits naming (identity, source): the stable part of the link's dedupe keys. */
export function linkHash(link: Pick<UpstreamLink, 'sessionKey' | 'agentId' | 'hostId' | 'threadId' | 'upstreamKind' | 'ref'>): string {
  return sha256Hex([link.agentId, link.sessionKey, link.hostId, link.threadId, link.upstreamKind, canonicalJson(link.ref)].join('\u0000')).slice(0, 16);
}

const SAFE_POSITION = /^[A-Za-z0-9._:-]{1,128}$/;

/** A provider position as a dedupe-key segment: verbatim when short and plain, otherwise hashed. */
export function positionToken(position: string): string {
  return SAFE_POSITION.test(position) ? position : `h${sha256Hex(position).slice(0, 32)}`;
}

/**
 * U5: `upstream:<linkHash>:<serial>:<position>`. The position is unique within an incarnation
 * (U6, U7), the serial separates incarnations, so a replay after a failed marker write dedupes
 * (R8) and a new incarnation can never collide with an old one.
 */
export function humanDedupeKey(link: UpstreamLink, position: string): string {
  return `upstream:${linkHash(link)}:${link.serial}:${positionToken(position)}`;
}

/** U2: one key per (incarnation, generation): a retried record dedupes; a Continue starts a new streak and key. */
export function missingDedupeKey(link: UpstreamLink): string {
  return `upstream-missing:${linkHash(link)}:${link.serial}:${link.generation}`;
}
