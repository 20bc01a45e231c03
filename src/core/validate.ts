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

function codeOf(keyword: string): ValidationCode {
  switch (keyword) {
    case 'required':
      return 'required';
    case 'additionalProperties':
      return 'unknown-field';
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
  const c = checker(schema);
  if (c.Check(value)) return;
  const [first] = c.Errors(value);
  if (!first) throw new ValidationError(prefix || '(input)', 'type', 'invalid value');
  let field = pointerToField(prefix, first.instancePath);
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required' && Array.isArray(params['requiredProperties'])) {
    field = [field === '(input)' ? '' : field, String(params['requiredProperties'][0])].filter(Boolean).join('.');
  } else if (first.keyword === 'additionalProperties' && Array.isArray(params['additionalProperties']) && params['additionalProperties'].length > 0) {
    field = [field === '(input)' ? '' : field, String(params['additionalProperties'][0])].filter(Boolean).join('.');
  }
  throw new ValidationError(field, codeOf(first.keyword), friendlyMessage(first, c.Errors(value)));
}

/** Turns the validator's wording into something a caller can act on. */
function friendlyMessage(first: { keyword: string; message: string; instancePath: string; params: object }, all: readonly { keyword: string; instancePath: string; params: object }[]): string {
  if (first.keyword === 'const' || first.keyword === 'anyOf') {
    const allowed = all
      .filter((e) => e.instancePath === first.instancePath && e.keyword === 'const')
      .map((e) => String((e.params as { allowedValue?: unknown }).allowedValue));
    if (allowed.length > 0) return `must be one of: ${allowed.join(', ')}`;
  }
  if (first.keyword === 'additionalProperties' || first.message === 'schema is false') return 'is not a known field';
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

/** R1-R4, R9: validates record() input; returns it typed or throws. */
export function validateRecordInput(input: unknown): RecordInput {
  if (input !== null && typeof input === 'object' && 'kind' in input && !EVENT_KINDS.includes((input as { kind: EventKind }).kind)) {
    throw new ValidationError('kind', 'type', `unknown event kind ${JSON.stringify((input as { kind: unknown }).kind)}; must be one of: ${EVENT_KINDS.join(', ')}`);
  }
  assertSchema<RecordInput>(RecordInput, input);
  assertWellFormedStrings(input, '');
  assertKeyAgent(input.sessionKey, input.agentId, 'agentId');
  const kind = input.kind as EventKind;
  const payloadSchema = PAYLOAD_SCHEMAS[kind];
  if (input.payload !== undefined) {
    if (payloadSchema === null) throw new ValidationError('payload', 'not-allowed', `kind ${kind} carries no payload`);
    assertSchema(payloadSchema, input.payload, 'payload');
  } else if (PAYLOAD_REQUIRED.has(kind)) {
    throw new ValidationError('payload', 'required', `kind ${kind} requires a payload`);
  }
  return input;
}

export function validateWatchRequest(input: unknown): WatchRequest {
  assertSchema<WatchRequest>(WatchRequest, input);
  assertWellFormedStrings(input, '');
  assertKeyAgent(input.targetSessionKey, input.agentId, 'agentId');
  return input;
}

export function validateChangesSinceRequest(input: unknown): ChangesSinceRequest {
  assertSchema<ChangesSinceRequest>(ChangesSinceRequest, input);
  assertWellFormedStrings(input, '');
  assertKeyAgent(input.sessionKey, input.agentId, 'agentId');
  return input;
}

/** Validates a (sessionKey, agentId) pair given as positional arguments (R1: the agent must match an agent-scoped key). */
export function validateIdentity(sessionKey: unknown, agentId: unknown): asserts sessionKey is string {
  assertSchema(SessionKey, sessionKey, 'sessionKey');
  assertWellFormedStrings(sessionKey, 'sessionKey');
  assertSchema(AgentId, agentId, 'agentId');
  assertKeyAgent(sessionKey as string, agentId as string, 'agentId');
}

export function validateSessionKey(sessionKey: unknown, field = 'sessionKey'): asserts sessionKey is string {
  assertSchema(SessionKey, sessionKey, field);
  assertWellFormedStrings(sessionKey, field);
}

export function validateVersion(value: unknown, field: string): asserts value is number {
  assertSchema(Version, value, field);
}

/** R52, R1, R9: validates unwatch() input; returns it typed or throws. */
export function validateUnwatchRequest(input: unknown): UnwatchRequest {
  assertSchema<UnwatchRequest>(UnwatchRequest, input);
  assertWellFormedStrings(input, '');
  assertKeyAgent(input.targetSessionKey, input.agentId, 'agentId');
  return input;
}

/**
 * R27b, R9: validates ackNotices() arguments and returns a plain copy of the two fields it reads
 * (a Notice's other fields are ignored), so a caller editing its array later changes nothing.
 */
export function validateNoticeAcks(watcherSessionKey: unknown, notices: unknown): { watcherSessionKey: string; notices: NoticeAck[] } {
  validateSessionKey(watcherSessionKey, 'watcherSessionKey');
  assertSchema<NoticeAck[]>(NoticeAcks, notices, 'notices');
  return { watcherSessionKey, notices: notices.map((n) => ({ contextKey: n.contextKey, lastSeenSequence: n.lastSeenSequence })) };
}
