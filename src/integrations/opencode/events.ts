import { planHookStep, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * What OpenCode tells an in-process plugin, as steps of the shared planner (PROTOCOL.md T61). The
 * shapes are those `opencode-ai` 1.18.33 gave a plugin in offline runs, recorded in
 * test/hook/opencode-payloads/ and checked against the pinned binary by
 * test/hook/opencode-payloads.test.ts: bus events `{id, type, properties}` (`session.created` with
 * the session's `info`, `session.compacted`, `message.part.updated` with the `part`) and the
 * `chat.message` hook's `(input, output)` with the person's new message. Only the fields read here
 * are checked; the rest is OpenCode's.
 */

/** T61: the agent of an OpenCode session key `agent:opencode:<session id>`. */
export const OPENCODE_AGENT = 'opencode';

/** T61: the dedupe space of an OpenCode agent (R8, T17): `opencode`, or `opencode@<agent>` for another agent id. */
export function opencodeDedupeSpace(agentId: string): string {
  return agentId === OPENCODE_AGENT ? 'opencode' : `opencode@${agentId}`;
}

/** A bus event as the plugin's `event` hook gets it, by the fields the kit reads. */
export interface OpencodeEvent {
  id?: string;
  type: string;
  properties?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** T61: what one bus event means to the kit. */
export type OpencodeEventMeaning =
  /** A session began; `parentID` names the session that spawned it (a sub-agent's, T61: not the person's). */
  | { kind: 'created'; sessionId: string; parentId?: string }
  /** A compaction finished (T33). */
  | { kind: 'compacted'; sessionId: string }
  /** A part was stored: the kit's own part (acked then, T62), or a compaction's (it says whether it was automatic). */
  | { kind: 'part-stored'; sessionId: string; partId: string; compaction?: { auto: boolean } }
  /** The session's turn ended. */
  | { kind: 'idle'; sessionId: string };

/** T61: a bus event as the kit reads it, or undefined for the many events it does not act on. */
export function opencodeEventMeaning(event: OpencodeEvent): OpencodeEventMeaning | undefined {
  const p = isObject(event.properties) ? event.properties : {};
  switch (event.type) {
    case 'session.created': {
      const info = isObject(p['info']) ? p['info'] : {};
      const sessionId = info['id'] ?? p['sessionID'];
      if (!str(sessionId)) return undefined;
      return { kind: 'created', sessionId, ...(str(info['parentID']) ? { parentId: info['parentID'] } : {}) };
    }
    case 'session.compacted':
      return str(p['sessionID']) ? { kind: 'compacted', sessionId: p['sessionID'] } : undefined;
    case 'session.idle':
      return str(p['sessionID']) ? { kind: 'idle', sessionId: p['sessionID'] } : undefined;
    case 'message.part.updated': {
      const part = isObject(p['part']) ? p['part'] : {};
      if (!str(part['id']) || !str(part['sessionID'])) return undefined;
      return { kind: 'part-stored', sessionId: part['sessionID'], partId: part['id'], ...(part['type'] === 'compaction' ? { compaction: { auto: part['auto'] === true } } : {}) };
    }
    default:
      return undefined;
  }
}

/** T61: the planner's options for an OpenCode agent. */
export function opencodePlanOptions(agentId: string): { agentId: string; channel: string; dedupeSpace: string } {
  return { agentId, channel: 'opencode', dedupeSpace: opencodeDedupeSpace(agentId) };
}

/** T61: a new main session: registered (one `created`, R8); its key is told with its first prompt (T62). */
export function planOpencodeStart(sessionId: string, agentId: string): HookPlan | string {
  return planHookStep({ type: 'session_start', hookEvent: 'session.created', sessionId, source: 'startup' }, opencodePlanOptions(agentId));
}

/**
 * T61: the person's message in a main session (`chat.message`). `registered`: this process saw the
 * session start or an earlier prompt of it (else the prompt registers it, T31); `keyLineLost`: the
 * model has not been told the key since the session began or was compacted (T62). The message id
 * is OpenCode's own, one per message, so two plugins on one database record the turn once (R8).
 */
export function planOpencodePrompt(step: { sessionId: string; messageId: string; registered: boolean; keyLineLost: boolean }, agentId: string): HookPlan | string {
  const prompt: HookStep = { type: 'prompt', hookEvent: 'chat.message', sessionId: step.sessionId, byPerson: true, keyLineLost: step.keyLineLost, ...(str(step.messageId) ? { promptId: step.messageId } : {}) };
  return planHookStep(prompt, opencodePlanOptions(agentId), step.registered);
}

/** T61, T33: a finished compaction, automatic unless OpenCode's compaction part said otherwise. */
export function planOpencodeCompaction(sessionId: string, auto: boolean, agentId: string): HookPlan | string {
  return planHookStep({ type: 'compacted', hookEvent: 'session.compacted', sessionId, trigger: auto ? 'auto' : 'manual' }, opencodePlanOptions(agentId));
}
