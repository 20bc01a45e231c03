import { randomUUID } from 'node:crypto';
import type { Agent, AgentToolOptionsWithDefault, Runner, Tool } from '@openai/agents';
import type { MaybePromise, RecordInput, StateEvent } from '../../../spec/index.js';
import { parseAgentScopedKey, validateRecordInput } from '../../core/index.js';
import { errorDetails, silentLogger, type Logger } from '../../shared/logger.js';

/** The part of a store of the contract delegation tracking writes through. */
export interface DelegationStore {
  /** R3-R19: records one event (see SessionStateStore.record). */
  record(input: RecordInput): MaybePromise<StateEvent | undefined>;
}

/** T36: a child session opened for a delegated run (a handoff or an agent used as a tool). */
export interface ChildSession {
  /** The delegated run's own session key: `agent:<agentId>:subagent:<id>` (R25: its notices wait for its next turn). */
  sessionKey: string;
  agentId: string;
  /** The session that delegated (its cursor on the child is seeded, R14). */
  parentSessionKey: string;
  /** The SDK agent that runs in the child session. */
  agent: Agent<any, any>;
  /** How it was delegated. */
  via: 'handoff' | 'agent-tool';
}

/** T36: options of trackDelegations: the store, the root agent and its session, and how child ids and agent ids are made. */
export interface DelegationOptions {
  store: DelegationStore;
  /** The agent a run starts with and its session (the caller names it: the kit has no session registry). */
  root: { agent: Agent<any, any>; sessionKey: string };
  /** T36: the agent id of an SDK agent's sessions (default: its name, with characters an agent id cannot hold replaced by `-`). */
  agentIdOf?: (agent: Agent<any, any>) => string;
  /** A new unique id per delegated run (default `crypto.randomUUID`). */
  newId?: () => string;
  /** Called once a child session exists (its child_spawned is queued; `settled()` waits for it). */
  onChildSession?: (child: ChildSession) => void;
  logger?: Logger;
}

/** T36: what trackDelegations returns: marked agent tools, the session each agent runs in, and the child sessions opened. */
export interface DelegationTracker {
  /** `worker.asTool(options)`, marked so that a call of it opens a child session (T36). */
  agentTool<A extends Agent<any, any>>(worker: A, options: AgentToolOptionsWithDefault<any, A>): Tool<any>;
  /** The session an agent currently runs in: the root's, or its latest child session. */
  sessionOf(agent: Agent<any, any>): string | undefined;
  /** Every child session opened so far, in order. */
  children(): readonly ChildSession[];
  /** Resolves when every record queued so far was written (hooks are events: the SDK does not wait for them). */
  settled(): Promise<void>;
  /** Stops listening to the runner. */
  detach(): void;
}

const CHANNEL = 'openai-agents';

/** T36: an SDK agent's name as an agent id (R1): `^[A-Za-z0-9][A-Za-z0-9_.-]*$`, at most 64 characters. */
export function agentIdFromName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
  return cleaned.length > 0 ? cleaned : 'agent';
}

/**
 * T36: lifecycle hooks on an `@openai/agents` Runner that give each delegated run (a handoff, or a
 * call of an agent used as a tool) a session of its own. The child session is recorded with
 * `child_spawned`, the delegating session passed as watcher, so the parent's cursor is seeded at
 * the spawn (R14) and a later change by another actor (a person writing to the worker) is one
 * notice for the parent (R15, R24). The child's end is `run_completed`: a terminal kind, which
 * the spawning parent does not hear of (R16), since the SDK hands the result back itself.
 * Writes are best effort (R9): a failure is logged and the run goes on.
 */
export function trackDelegations(runner: Runner, options: DelegationOptions): DelegationTracker {
  const { store, root } = options;
  const agentIdOf = options.agentIdOf ?? ((agent: Agent<any, any>) => agentIdFromName(agent.name));
  const newId = options.newId ?? randomUUID;
  const logger = options.logger ?? silentLogger;
  if (parseAgentScopedKey(root.sessionKey) === undefined) throw new TypeError(`root.sessionKey must be an agent-scoped key (agent:<agentId>:...), got ${JSON.stringify(root.sessionKey)}`);
  const current = new Map<Agent<any, any>, string>([[root.agent, root.sessionKey]]);
  const agentTools = new WeakMap<Tool<any>, Agent<any, any>>();
  const byCall = new Map<string, ChildSession>();
  const handedTo = new Map<Agent<any, any>, ChildSession>();
  const all: ChildSession[] = [];
  let queue: Promise<void> = Promise.resolve();

  const write = (input: RecordInput) => {
    queue = queue.then(async () => {
      try {
        await store.record(validateRecordInput(input));
      } catch (error) {
        try {
          logger.warn(`openai-agents: could not record ${input.kind} on ${input.sessionKey}`, errorDetails(error));
        } catch {
          // R9: the logger is the runtime's code.
        }
      }
    });
  };

  const open = (parent: Agent<any, any>, agent: Agent<any, any>, via: ChildSession['via'], runId: string | undefined): ChildSession | undefined => {
    const parentSessionKey = current.get(parent);
    if (parentSessionKey === undefined) return undefined;
    const agentId = agentIdOf(agent);
    const child: ChildSession = { sessionKey: `agent:${agentId}:subagent:${newId()}`, agentId, parentSessionKey, agent, via };
    current.set(agent, child.sessionKey);
    all.push(child);
    write({
      sessionKey: child.sessionKey,
      agentId,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: parentSessionKey,
      summary: via === 'handoff' ? `handoff via ${CHANNEL}` : `agent tool call via ${CHANNEL}`,
      watchers: [parentSessionKey],
      ...(runId !== undefined && runId.length > 0 && runId.length <= 512 ? { runId } : {}),
    });
    try {
      options.onChildSession?.(child);
    } catch (error) {
      logger.warn('openai-agents: onChildSession threw', errorDetails(error));
    }
    return child;
  };

  const close = (child: ChildSession) => {
    write({ sessionKey: child.sessionKey, agentId: child.agentId, kind: 'run_completed', actorType: 'agent', actorId: child.sessionKey, summary: `delegated run ended via ${CHANNEL}` });
  };

  const onHandoff = (_ctx: unknown, from: Agent<any, any>, to: Agent<any, any>) => {
    const child = open(from, to, 'handoff', undefined);
    if (child !== undefined) handedTo.set(to, child);
  };
  const onToolStart = (_ctx: unknown, agent: Agent<any, any>, tool: Tool<any>, details: { toolCall: { type: string; callId?: string } }) => {
    const worker = agentTools.get(tool);
    if (worker === undefined) return;
    const callId = details?.toolCall?.callId;
    // The runner and the calling agent both announce one call; the first opens the session.
    if (callId !== undefined && byCall.has(callId)) return;
    const child = open(agent, worker, 'agent-tool', callId);
    if (child !== undefined && callId !== undefined) byCall.set(callId, child);
  };
  const onToolEnd = (_ctx: unknown, _agent: Agent<any, any>, tool: Tool<any>, _result: string, details: { toolCall: { callId?: string } }) => {
    if (!agentTools.has(tool)) return;
    const callId = details?.toolCall?.callId;
    const child = callId === undefined ? undefined : byCall.get(callId);
    if (child === undefined) return;
    byCall.delete(callId!);
    close(child);
  };
  const onAgentEnd = (_ctx: unknown, agent: Agent<any, any>) => {
    const child = handedTo.get(agent);
    if (child === undefined) return;
    handedTo.delete(agent);
    close(child);
  };

  // T36: listeners run inside the runner's event emitter; one that threw on an event shaped
  // unlike the SDK's types would fail the run. The event is logged and lost, never the run (R9).
  const safe =
    <A extends unknown[]>(name: string, listener: (...args: A) => void) =>
    (...args: A): void => {
      try {
        listener(...args);
      } catch (error) {
        try {
          logger.warn(`openai-agents: ${name} listener failed`, errorDetails(error));
        } catch {
          // R9: the logger is the runtime's code.
        }
      }
    };
  // An agent used as a tool runs in a Runner of its own, which this runner's hooks do not hear; the
  // agent's own hooks do, so its agent-tool calls open child sessions at any depth (T36).
  const listened = new Map<Agent<any, any>, { start: (...args: any[]) => void; end: (...args: any[]) => void }>();
  const listenTo = (agent: Agent<any, any>) => {
    if (listened.has(agent)) return;
    const start = safe('agent_tool_start', (ctx: unknown, tool: Tool<any>, details: { toolCall: { type: string; callId?: string } }) => {
      if (details?.toolCall?.callId !== undefined) onToolStart(ctx, agent, tool, details);
    });
    const end = safe('agent_tool_end', (ctx: unknown, tool: Tool<any>, result: string, details: { toolCall: { callId?: string } }) => onToolEnd(ctx, agent, tool, result, details));
    agent.on('agent_tool_start', start as never);
    agent.on('agent_tool_end', end as never);
    listened.set(agent, { start, end });
  };

  const heard = { handoff: safe('agent_handoff', onHandoff), toolStart: safe('agent_tool_start', onToolStart), toolEnd: safe('agent_tool_end', onToolEnd), end: safe('agent_end', onAgentEnd) };
  runner.on('agent_handoff', heard.handoff);
  runner.on('agent_tool_start', heard.toolStart as never);
  runner.on('agent_tool_end', heard.toolEnd as never);
  runner.on('agent_end', heard.end);

  return {
    agentTool: (worker, toolOptions) => {
      const made: Tool<any> = worker.asTool(toolOptions);
      agentTools.set(made, worker);
      listenTo(worker);
      return made;
    },
    sessionOf: (agent) => current.get(agent),
    children: () => all,
    settled: () => queue,
    detach: () => {
      runner.off('agent_handoff', heard.handoff);
      runner.off('agent_tool_start', heard.toolStart as never);
      runner.off('agent_tool_end', heard.toolEnd as never);
      runner.off('agent_end', heard.end);
      for (const [agent, { start, end }] of listened) {
        agent.off('agent_tool_start', start as never);
        agent.off('agent_tool_end', end as never);
      }
      listened.clear();
    },
  };
}
