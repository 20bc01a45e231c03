import type { TSchema } from 'typebox';
import { ValidationError, assertSchema, parseAgentScopedKey, snapshotInput, validateSessionKey } from '../core/index.js';

/**
 * T1, T2: tool arguments come from a model, so they are checked before the store sees them: a
 * closed schema (an unknown field is an error, R9), well-formed keys (R1), and the session's agent
 * derived from an agent-scoped key. A ValidationError names the field; nothing has been written.
 */
export function checkArgs<T>(schema: TSchema, args: unknown, keyFields: readonly string[]): T {
  // A tool called with no arguments at all arrives as undefined from some clients. R9a: the
  // caller's object is read once; only the copy is checked and used, so a getter or a Proxy that
  // answers differently on a later read cannot put an unchecked value into a model's text.
  const value = snapshotInput(args === undefined ? {} : args);
  assertSchema<T>(schema, value);
  for (const field of keyFields) {
    const key = (value as Record<string, unknown>)[field];
    if (key !== undefined) validateSessionKey(key, field);
  }
  return value;
}

/**
 * T2: the agent a session key belongs to. An agent-scoped key (`agent:<id>:...`) names its agent,
 * and a given agentId must match it (R1); a bare key (`global`, `main`) names one session per
 * agent, so it needs agentId, or the runtime's own agent (`defaultAgentId`) when it has one.
 */
export function resolveAgentId(sessionKey: string, agentId: string | undefined, defaultAgentId: string | undefined, field = 'agentId'): string {
  const scoped = parseAgentScopedKey(sessionKey);
  if (scoped) {
    if (agentId !== undefined && agentId !== scoped.agentId) {
      throw new ValidationError(field, 'mismatch', `agentId "${agentId}" does not match the agent of session key "${sessionKey}"`);
    }
    return scoped.agentId;
  }
  if (agentId !== undefined) return agentId;
  if (defaultAgentId !== undefined) return defaultAgentId;
  throw new ValidationError(field, 'required', `session key "${sessionKey}" is not agent-scoped (agent:<agentId>:...), so agentId is required`);
}
