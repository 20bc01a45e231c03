import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import {
  ChangesSinceRequest,
  EVENT_KINDS,
  PAYLOAD_REQUIRED,
  PAYLOAD_SCHEMAS,
  RecordInput,
  WatchRequest,
  UnwatchRequest,
  NoticeAcks,
  AgentId,
  SessionKey,
  OpaqueId,
  Summary,
  ACTOR_TYPES,
  LIMITS,
  Version,
  type EventKind,
  type NoticeAck,
} from '../../spec/index.js';
import { ValidationError, type ValidationCode } from './errors.js';
import { isWellFormed, parseAgentScopedKey } from './keys.js';

type Checker = ReturnType<typeof Compile>;
const cache = new WeakMap<TSchema, Checker>();
function checker(schema: TSchema): Checker {
  let c = cache.get(schema);
  if (!c) {
    c = Compile(schema);
    cache.set(schema, c);
  }
  return c;
}

function pointerToField(prefix: string, pointer: string): string {
  const path = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [prefix, ...path].filter((p) => p.length > 0).join('.') || prefix || '(input)';
}

/**
 * The validator reports a field that a closed object does not know as a `false` schema at that
 * field's path (`#/additionalProperties`), before its summary error at the object itself.
 */
function isUnknownField(error: { schemaPath: string }): boolean {
  return error.schemaPath.endsWith('/additionalProperties');
}

function codeOf(keyword: string): ValidationCode {
  switch (keyword) {
    case 'required':
      return 'required';
    case 'pattern':
    case 'format':
      return 'format';
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return 'range';
    default:
      return 'type';
  }
}

/** Checks `value` against a spec schema; throws a ValidationError naming the first bad field. */
export function assertSchema<T>(schema: TSchema, value: unknown, prefix = ''): asserts value is T {
  // T16: the validator's error report walks the whole value (twice, with the message): refusing
  // an oversized input by size first keeps a refusal as cheap as an acceptance, same error.
  assertArraySizeFirst(schema, value, prefix);
  const c = checker(schema);
  if (c.Check(value)) return;
  const probe = closedObjectProbe(schema, value);
  const [first] = c.Errors(probe);
  if (!first) throw new ValidationError(prefix || '(input)', 'type', 'invalid value');
  let field = pointerToField(prefix, first.instancePath);
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required' && Array.isArray(params['requiredProperties'])) {
    field = [field === '(input)' ? '' : field, String(params['requiredProperties'][0])].filter(Boolean).join('.');
  }
  throw new ValidationError(field, isUnknownField(first) ? 'unknown-field' : codeOf(first.keyword), friendlyMessage(first, () => c.Errors(probe)));
}

interface SizedSchema {
  type?: unknown;
  maxItems?: unknown;
  items?: unknown;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
}

/**
 * T16: an array over its schema's maxItems. The validator names the first bad element before the
 * length, so the elements are checked one by one with the fast check, and only a bad one is
 * explained; otherwise the length is the error. Nothing is walked twice.
 */
function assertArraySizeFirst(schema: TSchema, value: unknown, prefix: string): void {
  const s = schema as SizedSchema;
  if (!Array.isArray(value) || s.type !== 'array' || typeof s.maxItems !== 'number' || value.length <= s.maxItems) return;
  if (s.items !== undefined && typeof s.items === 'object' && s.items !== null) {
    const items = s.items as TSchema;
    const ic = checker(items);
    for (let i = 0; i < value.length; i++) if (!ic.Check(value[i])) assertSchema(items, value[i], prefix ? `${prefix}.${i}` : String(i));
  }
  throw new ValidationError(prefix || '(input)', 'range', `must not have more than ${s.maxItems} items`);
}

/**
 * T16: a closed object with more fields than its schema knows. The validator reports the known
 * fields in schema order and then the first unknown one, so a copy holding the known fields and
 * only the first unknown one (in the input's key order) has the same first error, at the cost of
 * a few fields instead of all of them.
 */
function closedObjectProbe(schema: TSchema, value: unknown): unknown {
  const s = schema as SizedSchema;
  if (s.type !== 'object' || s.additionalProperties !== false || s.properties === undefined) return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const known = s.properties;
  if (keys.length <= Object.keys(known).length) return value;
  const probe: Record<string, unknown> = {};
  let unknownKept = false;
  for (const key of keys) {
    const isKnown = Object.prototype.hasOwnProperty.call(known, key);
    if (!isKnown) {
      if (unknownKept) continue;
      unknownKept = true;
    }
    Object.defineProperty(probe, key, { value: (value as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true });
  }
  return probe;
}

/** Turns the validator's wording into something a caller can act on. */
function friendlyMessage(first: { keyword: string; message: string; instancePath: string; schemaPath: string; params: object }, all: () => readonly { keyword: string; instancePath: string; params: object }[]): string {
  if (first.keyword === 'const' || first.keyword === 'anyOf') {
    const allowed = all()
      .filter((e) => e.instancePath === first.instancePath && e.keyword === 'const')
      .map((e) => String((e.params as { allowedValue?: unknown }).allowedValue));
    if (allowed.length > 0) return `must be one of: ${allowed.join(', ')}`;
  }
  if (isUnknownField(first)) return 'is not a known field';
  if (first.keyword === 'pattern') return `has characters or a shape that is not allowed (${first.message})`;
  return first.message;
}

/** R1: every string of the input must be well-formed UTF-16 (no lone surrogates). */
function assertWellFormedStrings(value: unknown, field: string): void {
  if (typeof value === 'string') {
    if (!isWellFormed(value)) throw new ValidationError(field, 'format', 'contains a lone UTF-16 surrogate');
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertWellFormedStrings(v, field ? `${field}.${i}` : String(i)));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) assertWellFormedStrings(v, field ? `${field}.${k}` : k);
  }
}

/** R1: an agent-scoped session key must name the same agent as agentId. */
function assertKeyAgent(sessionKey: string, agentId: string, field: string): void {
  const parsed = parseAgentScopedKey(sessionKey);
  if (parsed && parsed.agentId !== agentId) {
    throw new ValidationError(field, 'mismatch', `agentId "${agentId}" does not match the agent of session key "${sessionKey}"`);
  }
}

/** Nested plain objects deeper than this are refused instead of walked (a cycle would never end). */
const MAX_INPUT_DEPTH = 16;

/**
 * R9a: the one read of a caller's input. Own enumerable string-keyed properties are each read
 * exactly once (a getter runs once, a Proxy's `get` trap once per key), arrays are copied element
 * by element, and nested plain objects and arrays are copied the same way. Validation and the
 * store then use only the copy, so a value that changes between two reads (a getter, a Proxy,
 * another thread of the caller) can never be validated as one value and stored as another.
 * A hole in an array is a ValidationError naming its index: `[, 'x']` is not a list of keys, and
 * so is a nested object that is not plain (a Date, a Map, a class instance).
 */
export function snapshotInput(value: unknown, field = '', depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_INPUT_DEPTH) throw new ValidationError(field || '(input)', 'type', `is nested deeper than ${MAX_INPUT_DEPTH} levels`);
  if (Array.isArray(value)) {
    const length = value.length;
    const copy: unknown[] = [];
    for (let i = 0; i < length; i++) {
      if (!Object.prototype.hasOwnProperty.call(value, i)) throw new ValidationError(childField(field, i), 'type', 'is a hole in a sparse array');
      const item: unknown = value[i];
      // A primitive needs no field name; building it per element would cost more than the copy.
      copy.push(item === null || typeof item !== 'object' ? item : snapshotInput(item, childField(field, i), depth + 1));
    }
    return copy;
  }
  // Only the top level and plain objects are copied. Other objects (Date, Map, class instances)
  // are refused here: the schema's object check accepts them, and a Date or Map payload used to
  // be stored as `{}`.
  const proto: unknown = Object.getPrototypeOf(value);
  if (depth > 0 && proto !== Object.prototype && proto !== null) throw new ValidationError(field, 'type', 'must be a plain object');
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item: unknown = (value as Record<string, unknown>)[key];
    const copied = item === null || typeof item !== 'object' ? item : snapshotInput(item, childField(field, key), depth + 1);
    // An own `__proto__` key (JSON.parse makes one) stays a plain field of the copy, for the schema to
    // refuse by name, instead of replacing the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else copy[key] = copied;
  }
  return copy;
}

// A module-level function rather than a closure per call: snapshotInput runs for every record.
function childField(field: string, key: string | number): string {
  return field ? `${field}.${key}` : String(key);
}

interface ObjectSchemaShape {
  properties: Record<string, TSchema>;
  required?: readonly string[];
}

/**
 * R9a: checks a snapshot against an object schema one field at a time in the schema's property
 * order, then names the first unknown field (in the input's own key order). So when two fields
 * are bad the error names the earlier one in spec/schemas, whatever the validator library's
 * traversal order. `extra(key, value)` adds the field's own rules (R1 agent agreement, payload by
 * kind), run at that field's turn. A non-object input is `field: "(input)"`.
 */
export function assertObjectInOrder(
  schema: TSchema,
  input: unknown,
  extra: (key: string, value: unknown, checked: Record<string, unknown>) => void = () => {},
): asserts input is Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ValidationError('(input)', 'type', 'must be an object');
  const shape = schema as unknown as ObjectSchemaShape;
  const record = input as Record<string, unknown>;
  const required = new Set(shape.required ?? []);
  for (const [key, fieldSchema] of Object.entries(shape.properties)) {
    const value = record[key];
    if (value === undefined) {
      if (required.has(key)) throw new ValidationError(key, 'required', 'is required');
      continue;
    }
    extra(key, value, record);
    assertSchema(fieldSchema, value, key);
    assertWellFormedStrings(value, key);
  }
  for (const key of Object.keys(record)) {
    // Own properties only: `constructor` or `toString` are not fields of any schema (R9).
    if (!Object.prototype.hasOwnProperty.call(shape.properties, key)) throw new ValidationError(key, 'unknown-field', 'is not a known field');
  }
}

/** R1-R4, R9, R9a: validates record() input; returns a snapshot of it, typed, or throws. */
export function validateRecordInput(raw: unknown): RecordInput {
  const input = snapshotInput(raw);
  // The common case (a valid input) is accepted in one pass; anything the fast check does not
  // accept goes through the exhaustive check below, on the same snapshot (R9a: the caller's
  // object is not read again), so which error is thrown never depends on the fast check.
  if (hasRecordFieldsOnly(input) && isAcceptedRecordInput(input)) return input;
  return checkRecordInputInOrder(input);
}

/**
 * validateRecordInput for the record path (prepareRecord): the same decision and the same error,
 * but an accepted input comes back as one fixed-shape object with every RecordInput field, absent
 * ones `undefined` (see snapshotRecordInput), and its payload frozen. Cheaper to build and to read
 * than a copy in the caller's key order; not for callers that look at the keys.
 */
export function validateRecordFields(raw: unknown): RecordInput {
  const { input, knownFieldsOnly } = snapshotRecordInput(raw);
  if (knownFieldsOnly && isAcceptedRecordInput(input)) return input;
  const valid = checkRecordInputInOrder(input);
  // The fast check's payloads are frozen already (acceptedPayload); this one is the snapshot's own copy.
  if (valid.payload !== undefined) Object.freeze(valid.payload);
  return valid;
}

/**
 * Whether each record entry point's fast check accepts `raw` by itself, without the exhaustive
 * check. Answers only and writes nothing: for tests, which hold the fast check to accepting the
 * common valid inputs (a fast check that says "not sure" too often costs only time, which no other
 * test sees). Not exported from the package (core/index.ts names its exports).
 */
export function recordFastPathAccepts(raw: unknown): { validateRecordInput: boolean; validateRecordFields: boolean } {
  const snapshot = snapshotInput(raw);
  const fields = snapshotRecordInput(raw);
  return {
    validateRecordInput: hasRecordFieldsOnly(snapshot) && isAcceptedRecordInput(snapshot),
    validateRecordFields: fields.knownFieldsOnly && isAcceptedRecordInput(fields.input),
  };
}

/** Whether a snapshot holds RecordInput's fields only (own keys; the exhaustive check names any other). */
function hasRecordFieldsOnly(input: unknown): boolean {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return false;
  for (const key in input) {
    // An inherited or unknown key: the exhaustive check decides what to say about it.
    if (!Object.prototype.hasOwnProperty.call(input, key) || !RECORD_FIELDS.has(key)) return false;
  }
  return true;
}

/**
 * R9a for record(): snapshotInput's one read of the argument (Object.keys, then each key's value
 * once, nested values through snapshotInput), but an input whose keys are all RecordInput fields is
 * copied into one fixed-shape object (absent fields undefined, which every check reads as absent),
 * its fields stored by name, instead of a copy grown key by key in the input's order. An input with
 * any other key gets snapshotInput's ordered copy, built from the values already read, because the
 * exhaustive check names the first unknown field in the input's own key order.
 */
function snapshotRecordInput(value: unknown): { input: unknown; knownFieldsOnly: boolean } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { input: snapshotInput(value), knownFieldsOnly: false };
  const keys = Object.keys(value);
  // Values of keys that are not RecordInput fields, in key order; none (and no list) in the common case.
  let extras: unknown[] | undefined;
  let sessionKey, agentId, sessionId, kind, actorType, actorId, runId, occurredAt, summary, payload, dedupeKey, watchers, onlyIfWatched: unknown;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item: unknown = (value as Record<string, unknown>)[key];
    const copied = item === null || typeof item !== 'object' ? item : snapshotInput(item, key, 1);
    // RecordInput's fields (a test holds this list to spec/schemas).
    switch (key) {
      case 'sessionKey': sessionKey = copied; break;
      case 'agentId': agentId = copied; break;
      case 'sessionId': sessionId = copied; break;
      case 'kind': kind = copied; break;
      case 'actorType': actorType = copied; break;
      case 'actorId': actorId = copied; break;
      case 'runId': runId = copied; break;
      case 'occurredAt': occurredAt = copied; break;
      case 'summary': summary = copied; break;
      case 'payload': payload = copied; break;
      case 'dedupeKey': dedupeKey = copied; break;
      case 'watchers': watchers = copied; break;
      case 'onlyIfWatched': onlyIfWatched = copied; break;
      default: (extras ??= []).push(copied);
    }
  }
  const input = { sessionKey, agentId, sessionId, kind, actorType, actorId, runId, occurredAt, summary, payload, dedupeKey, watchers, onlyIfWatched };
  if (extras === undefined) return { input, knownFieldsOnly: true };
  const copy: Record<string, unknown> = {};
  let nextExtra = 0;
  for (const key of keys) {
    // Each value as read above: a field from the fixed-shape copy, any other key from extras in turn.
    const copied = RECORD_FIELDS.has(key) ? (input as Record<string, unknown>)[key] : extras[nextExtra++];
    // As in snapshotInput: an own `__proto__` key stays a plain field, for the schema to refuse by name.
    if (key === '__proto__') Object.defineProperty(copy, '__proto__', { value: copied, enumerable: true, writable: true, configurable: true });
    else copy[key] = copied;
  }
  return { input: copy, knownFieldsOnly: false };
}

/**
 * R1-R4, R9: the exhaustive check of a snapshot, field by field in schema order; throws the
 * ValidationError naming the first bad field. Exported so a test can hold the fast check to it.
 */
export function checkRecordInputInOrder(input: unknown): RecordInput {
  assertObjectInOrder(RecordInput, input, (key, value, all) => {
    if (key === 'kind' && !EVENT_KINDS.includes(value as EventKind)) {
      throw new ValidationError('kind', 'type', `unknown event kind ${JSON.stringify(value)}; must be one of: ${EVENT_KINDS.join(', ')}`);
    }
    if (key === 'payload') {
      // kind came earlier in schema order, so it is valid here.
      const kind = all['kind'] as EventKind;
      const payloadSchema = PAYLOAD_SCHEMAS[kind];
      if (payloadSchema === null) throw new ValidationError('payload', 'not-allowed', `kind ${kind} carries no payload`);
      assertSchema(payloadSchema, value, 'payload');
    }
  });
  const valid = input as RecordInput;
  const kind = valid.kind as EventKind;
  if (valid.payload === undefined && PAYLOAD_REQUIRED.has(kind)) throw new ValidationError('payload', 'required', `kind ${kind} requires a payload`);
  // Reported at the end so R1's agreement rule does not hide a bad field that the schema itself names earlier.
  assertKeyAgent(valid.sessionKey, valid.agentId, 'agentId');
  return valid;
}

// ---- The fast acceptance check of record() input ----
//
// It answers true only for an input the exhaustive check (checkRecordInputInOrder) accepts: every
// test below is that check's rule or a stricter one (lengths in UTF-16 units bound the schema's
// code-point lengths from above; the regular expressions are the schema's own patterns with the
// flag the validator uses). False means "not sure", never "invalid": the exhaustive check decides.

function patternOf(schema: TSchema): RegExp {
  return new RegExp((schema as unknown as { pattern: string }).pattern, 'u');
}

/** Remembered answers are capped: a producer repeats a few keys and summaries, not millions. */
const MEMO_LIMIT = 1024;

/**
 * A string field's rule (type, length, pattern, R1 well-formedness). The answer depends on the
 * string alone, so strings once accepted are remembered (the same keys and summaries come back
 * record after record) and the pattern runs once per distinct string, not once per record.
 */
class StringRule {
  private readonly accepted = new Set<string>();
  constructor(
    private readonly maxLength: number,
    private readonly pattern: RegExp,
  ) {}

  accepts(value: unknown): boolean {
    // The length first: an overlong string is refused without hashing it for the lookup.
    if (typeof value !== 'string' || value.length < 1 || value.length > this.maxLength) return false;
    if (this.accepted.has(value)) return true;
    if (!this.pattern.test(value) || !isWellFormed(value)) return false;
    if (this.accepted.size >= MEMO_LIMIT) this.accepted.clear();
    this.accepted.add(value);
    return true;
  }

  acceptsOptional(value: unknown): boolean {
    return value === undefined || this.accepts(value);
  }
}

const SESSION_KEY_RULE = new StringRule(LIMITS.keyMaxLength, patternOf(SessionKey));
const AGENT_ID_RULE = new StringRule(LIMITS.agentIdMaxLength, patternOf(AgentId));
const OPAQUE_ID_RULE = new StringRule(LIMITS.keyMaxLength, patternOf(OpaqueId));
const SUMMARY_RULE = new StringRule(LIMITS.summaryMaxLength, patternOf(Summary));
const RECORD_FIELDS: ReadonlySet<string> = new Set(Object.keys((RecordInput as unknown as ObjectSchemaShape).properties));
const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);
const ACTOR_TYPE_SET: ReadonlySet<string> = new Set(ACTOR_TYPES);

/** R1 agreement per session key: the agent an agent-scoped key names, or '' for a bare key (remembered like StringRule). */
const keyAgents = new Map<string, string>();
function agentOfKey(sessionKey: string): string {
  let agent = keyAgents.get(sessionKey);
  if (agent === undefined) {
    agent = parseAgentScopedKey(sessionKey)?.agentId ?? '';
    if (keyAgents.size >= MEMO_LIMIT) keyAgents.clear();
    keyAgents.set(sessionKey, agent);
  }
  return agent;
}

function isVersionLike(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
}

/** R1 for every string in a value (assertWellFormedStrings, answering instead of throwing). */
function allWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormed(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!allWellFormed(value[i])) return false;
    return true;
  }
  for (const v of Object.values(value)) if (!allWellFormed(v)) return false;
  return true;
}

/**
 * Each kind's compiled payload check, made on the kind's first payload and looked up after that.
 * Only the kind's own schema: every per-kind schema is a narrowing of the union `Payload` the
 * exhaustive check also applies (a test holds them to it), so what passes the first passes the
 * second. Not compiled up front: a hook process records one kind and exits, so it compiles one
 * schema rather than every kind's (about 4 ms of its start in a CPU profile).
 */
const PAYLOAD_CHECKERS = new Map<string, Checker | null>();

/** R4 for one kind's payload, exactly as the exhaustive check decides it. */
function isAcceptedPayload(kind: EventKind, payload: unknown): boolean {
  let check = PAYLOAD_CHECKERS.get(kind);
  if (check === undefined) {
    if (!Object.prototype.hasOwnProperty.call(PAYLOAD_SCHEMAS, kind)) return false;
    const schema = PAYLOAD_SCHEMAS[kind];
    check = schema === null ? null : checker(schema);
    PAYLOAD_CHECKERS.set(kind, check);
  }
  return check !== null && check.Check(payload) && allWellFormed(payload);
}

/**
 * The payload to store if `kind` accepts it, frozen, or undefined when the fast check cannot say
 * (the exhaustive check then decides). The snapshot gave `payload` to us as a plain object no one
 * else holds, so it is frozen in place rather than copied. (Remembering accepted payloads by
 * content was tried: it wins on a repeated payload and loses a third of the rate when a payload
 * carries a counter such as `turns`, so every payload is checked.)
 */
function acceptedPayload(kind: EventKind, payload: unknown): Readonly<Record<string, unknown>> | undefined {
  if (payload === null || typeof payload !== 'object' || Object.getPrototypeOf(payload) !== Object.prototype) return undefined;
  if (!isAcceptedPayload(kind, payload)) return undefined;
  return Object.freeze(payload as Record<string, unknown>);
}

function isAcceptedRecordInput(input: unknown): input is RecordInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return false;
  // The caller has made sure the snapshot holds RecordInput's fields only.
  const r = input as Record<string, unknown>;
  const sessionKey = r['sessionKey'];
  const agentId = r['agentId'];
  const kind = r['kind'];
  if (!SESSION_KEY_RULE.accepts(sessionKey)) return false;
  if (!AGENT_ID_RULE.accepts(agentId)) return false;
  if (!OPAQUE_ID_RULE.acceptsOptional(r['sessionId'])) return false;
  if (typeof kind !== 'string' || !KINDS.has(kind)) return false;
  if (typeof r['actorType'] !== 'string' || !ACTOR_TYPE_SET.has(r['actorType'])) return false;
  const actorId = r['actorId'];
  if (!SESSION_KEY_RULE.acceptsOptional(actorId)) return false;
  if (!OPAQUE_ID_RULE.acceptsOptional(r['runId'])) return false;
  if (r['occurredAt'] !== undefined && !isVersionLike(r['occurredAt'])) return false;
  if (!SUMMARY_RULE.accepts(r['summary'])) return false;
  const payload = r['payload'];
  if (payload === undefined) {
    if (PAYLOAD_REQUIRED.has(kind as EventKind)) return false;
  } else {
    const accepted = acceptedPayload(kind as EventKind, payload);
    if (accepted === undefined) return false;
    // The snapshot's own copy gives way to an equal, frozen one (see acceptedPayload).
    r['payload'] = accepted;
  }
  if (!OPAQUE_ID_RULE.acceptsOptional(r['dedupeKey'])) return false;
  const watchers = r['watchers'];
  if (watchers !== undefined) {
    // The snapshot made it a dense array of its own if it was an array at all.
    if (!Array.isArray(watchers) || watchers.length > LIMITS.maxWatchersPerRecord) return false;
    for (let i = 0; i < watchers.length; i++) if (!SESSION_KEY_RULE.accepts(watchers[i])) return false;
  }
  const onlyIfWatched = r['onlyIfWatched'];
  if (onlyIfWatched !== undefined && typeof onlyIfWatched !== 'boolean') return false;
  // R1: an agent-scoped key names the same agent as agentId.
  const keyAgent = agentOfKey(sessionKey as string);
  return keyAgent === '' || keyAgent === agentId;
}

/** R9a, R1: a (watcher, target identity) request, read once and checked in schema order. */
function validateTargetRequest<T extends { targetSessionKey: string; agentId: string }>(schema: TSchema, raw: unknown): T {
  const input = snapshotInput(raw);
  assertObjectInOrder(schema, input);
  const valid = input as T;
  assertKeyAgent(valid.targetSessionKey, valid.agentId, 'agentId');
  return valid;
}

/** R9, R21: validates a watch request and returns it; throws ValidationError naming the field. */
export function validateWatchRequest(raw: unknown): WatchRequest {
  return validateTargetRequest<WatchRequest>(WatchRequest, raw);
}

/** R9, R30: validates a changesSince request and returns it; throws ValidationError naming the field. */
export function validateChangesSinceRequest(raw: unknown): ChangesSinceRequest {
  const input = snapshotInput(raw);
  assertObjectInOrder(ChangesSinceRequest, input);
  const valid = input as ChangesSinceRequest;
  assertKeyAgent(valid.sessionKey, valid.agentId, 'agentId');
  return valid;
}

/** Validates a (sessionKey, agentId) pair given as positional arguments (R1: the agent must match an agent-scoped key). */
export function validateIdentity(sessionKey: unknown, agentId: unknown): asserts sessionKey is string {
  assertSchema(SessionKey, sessionKey, 'sessionKey');
  assertWellFormedStrings(sessionKey, 'sessionKey');
  assertSchema(AgentId, agentId, 'agentId');
  assertKeyAgent(sessionKey as string, agentId as string, 'agentId');
}

/** R1, R9: asserts a session key (length, well-formed string); throws ValidationError naming `field`. */
export function validateSessionKey(sessionKey: unknown, field = 'sessionKey'): asserts sessionKey is string {
  assertSchema(SessionKey, sessionKey, field);
  assertWellFormedStrings(sessionKey, field);
}

/** R9: asserts a sequence number (a non-negative safe integer); throws ValidationError naming `field`. */
export function validateVersion(value: unknown, field: string): asserts value is number {
  assertSchema(Version, value, field);
}

/** R52, R1, R9: validates unwatch() input; returns it typed or throws. */
export function validateUnwatchRequest(raw: unknown): UnwatchRequest {
  return validateTargetRequest<UnwatchRequest>(UnwatchRequest, raw);
}

/**
 * R27b, R9: validates ackNotices() arguments and returns a plain copy of the two fields it reads
 * (a Notice's other fields are ignored), so a caller editing its array later changes nothing.
 */
export function validateNoticeAcks(watcherSessionKey: unknown, notices: unknown): { watcherSessionKey: string; notices: NoticeAck[] } {
  validateSessionKey(watcherSessionKey, 'watcherSessionKey');
  // R9a: one read of each entry (holes name their index), then the schema on that snapshot.
  const snapshot = snapshotInput(notices, 'notices');
  assertSchema<NoticeAck[]>(NoticeAcks, snapshot, 'notices');
  return { watcherSessionKey, notices: snapshot.map((n) => ({ contextKey: n.contextKey, lastSeenSequence: n.lastSeenSequence })) };
}
