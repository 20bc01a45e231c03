/**
 * Facts the properties check against, written out again from spec/PROTOCOL.md rather than imported
 * from src/core: if the core had the text or the key grammar wrong, the reference store would be
 * wrong too, and a suite that reused the core would agree with it.
 */
import { Compile } from 'typebox/compile';
import { NOTIFY_CLASS, Notice, PAYLOAD_SCHEMAS, StateEvent, type EventKind } from '../spec/index.js';

/** R1: `agent:<agentId>:<rest>` with a literal lowercase `agent`, a valid agent id and a non-empty rest. */
export function agentOf(key: string): string | undefined {
  const m = /^agent:([A-Za-z0-9][A-Za-z0-9_.-]{0,63}):(.+)$/s.exec(key);
  return m ? m[1] : undefined;
}

export function isAgentScoped(key: string): boolean {
  return agentOf(key) !== undefined;
}

/** R23, verbatim. */
export function expectedNoticeText(targetSessionKey: string, lastSeen: number): string {
  return `Session "${targetSessionKey}" changed (other actor). Reconcile before acting: session_status sessionKey "${targetSessionKey}" changesSince ${lastSeen}.`;
}

function hex(value: string): string {
  return Buffer.from(value, 'utf8').toString('hex');
}

/** R24: `session-state:<hex utf8 agentId>:<hex utf8 key>`, lowercase. */
export function expectedContextKey(targetAgentId: string, targetSessionKey: string): string {
  return `session-state:${hex(targetAgentId)}:${hex(targetSessionKey)}`;
}

/** R25: sub-agent watchers (rest starts with `subagent:`) wake next turn. */
export function expectedWake(watcherSessionKey: string): 'next-turn' | 'immediate' {
  const m = /^agent:[^:]+:(.+)$/s.exec(watcherSessionKey);
  return m && m[1]!.startsWith('subagent:') ? 'next-turn' : 'immediate';
}

export function notifyClass(kind: string): string | undefined {
  return (NOTIFY_CLASS as Record<string, string>)[kind];
}

export function isLogOnly(kind: string): boolean {
  return notifyClass(kind) === 'log-only';
}

const eventCheck = Compile(StateEvent);
const noticeCheck = Compile(Notice);
const payloadChecks = new Map(
  Object.entries(PAYLOAD_SCHEMAS).map(([kind, schema]) => [kind, schema === null ? null : Compile(schema)] as const),
);

/** R3/R4: a stored event is metadata only: the closed StateEvent shape and its kind's closed payload. */
export function eventProblems(value: unknown): string | undefined {
  if (!eventCheck.Check(value)) {
    const [first] = eventCheck.Errors(value);
    return `does not match StateEvent${first ? ` at ${first.instancePath || '/'}: ${first.message}` : ''}`;
  }
  const e = value as StateEvent;
  const payloadCheck = payloadChecks.get(e.kind as EventKind);
  if (payloadCheck === null) {
    if (e.payload !== undefined) return `kind ${e.kind} must carry no payload`;
  } else if (payloadCheck !== undefined && e.payload !== undefined && !payloadCheck.Check(e.payload)) {
    return `payload does not match PAYLOAD_SCHEMAS.${e.kind}`;
  }
  return undefined;
}

export function noticeProblems(value: unknown): string | undefined {
  if (!noticeCheck.Check(value)) {
    const [first] = noticeCheck.Errors(value);
    return `does not match Notice${first ? ` at ${first.instancePath || '/'}: ${first.message}` : ''}`;
  }
  return undefined;
}
