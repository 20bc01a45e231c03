import type { Agent, AgentInputItem, CallModelInputFilter, RunResult, Runner } from '@openai/agents';
import type { MaybePromise, Notice, NoticeAck } from '../../../spec/index.js';
import { validateSessionKey } from '../../core/index.js';
import { NOTICES_PREAMBLE, noticesText } from '../../tools/text.js';
import { errorDetails, silentLogger, type Logger } from '../../shared/logger.js';

/** The part of a store of the contract the notice helper reads and acks through. */
export interface NoticeStore {
  /** R26: the watcher's pending notices, not acked. */
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  /** R27b: acks exactly the given notices still pending with the same L; returns those acked. */
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
}

/** T37: a run's input with the session's pending notices put in front, and the ack to call once the run took them. */
export interface NoticeInput {
  /** The run's input with the notices in front (unchanged when there are none). */
  input: string | AgentInputItem[];
  /** The notices put in (R26 order). */
  notices: Notice[];
  /** T37: acknowledges exactly these notices (R27b); call it once the run took them. Returns those acked. */
  ack(): Promise<Notice[]>;
}

/**
 * T37: the input item that carries notices to the model: a `user` message that says it holds
 * data. Never `system`: a session key is free text (R1), so a key reading "SYSTEM OVERRIDE ..."
 * would otherwise reach the model with the system role's authority.
 */
export function noticesItem(notices: readonly Notice[]): AgentInputItem {
  return { role: 'user', content: `${NOTICES_PREAMBLE}\n${noticesText(notices)}` };
}

/** T37: the line in front of the notices: what they are, and that they are not instructions. */
export { NOTICES_PREAMBLE };

/**
 * T37: puts a session's pending notices (T7 text: the R23 lines, R26 order) in front of its next
 * run's input, as one user message marked as data (noticesItem). Reading acks nothing (R26): the caller acks once the run
 * took them, so a run that failed before its model saw them delivers them again (at least once).
 */
export async function withPendingNotices(store: NoticeStore, sessionKey: string, input: string | AgentInputItem[]): Promise<NoticeInput> {
  validateSessionKey(sessionKey, 'sessionKey');
  const notices = await store.pendingNotices(sessionKey);
  const ack = async () => (notices.length === 0 ? [] : await store.ackNotices(sessionKey, notices));
  if (notices.length === 0) return { input, notices, ack };
  const items: AgentInputItem[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
  return { input: [noticesItem(notices), ...items], notices, ack };
}

/**
 * T37: one run with the session's pending notices in its input; they are acknowledged (R27b)
 * after the run resolved, and left pending when it threw.
 */
export async function runWithNotices<A extends Agent<any, any>>(
  runner: Runner,
  agent: A,
  input: string | AgentInputItem[],
  options: { store: NoticeStore; sessionKey: string; runOptions?: Record<string, unknown> },
): Promise<{ result: RunResult<any, A>; notices: Notice[]; acked: Notice[] }> {
  const prepared = await withPendingNotices(options.store, options.sessionKey, input);
  const result: RunResult<any, A> = await runner.run(agent, prepared.input, { ...(options.runOptions ?? {}), stream: false } as never);
  const acked = await prepared.ack();
  return { result, notices: prepared.notices, acked };
}

/** T38: notices on every turn: the model input filter to install and the ack to call when the run resolved. */
export interface TurnNotices {
  /** Pass as the run's `callModelInputFilter` (run options or the Runner's config). */
  callModelInputFilter: CallModelInputFilter;
  /** Acks what the last model calls were handed (R27b); call it once the run resolved. Returns those acked. */
  settle(): Promise<Notice[]>;
}

/**
 * T38: notices on every turn of a run, not only at its start. Before each model call of an agent
 * whose session `sessionKeyOf` knows, the session's pending notices (T7 text) are appended to that
 * call's input as one user message marked as data (noticesItem); the input the run keeps is unchanged. What a call was
 * handed is acked (R27b) when the same session's next model call is prepared (the call that
 * carried it returned) or by `settle()` after the run; a run that throws before either acks
 * nothing. A failing store never fails the run: the call goes out without notices and the
 * failure is logged.
 */
export function noticesEveryTurn(options: { store: NoticeStore; sessionKeyOf: (agent: Agent<any, any>) => string | undefined; logger?: Logger }): TurnNotices {
  const { store, sessionKeyOf } = options;
  const logger = options.logger ?? silentLogger;
  const handed = new Map<string, Notice[]>();
  const ackHanded = async (sessionKey: string): Promise<Notice[]> => {
    const notices = handed.get(sessionKey);
    handed.delete(sessionKey);
    return notices === undefined || notices.length === 0 ? [] : await store.ackNotices(sessionKey, notices);
  };
  const callModelInputFilter: CallModelInputFilter = async ({ modelData, agent }) => {
    const sessionKey = sessionKeyOf(agent);
    if (sessionKey === undefined) return modelData;
    try {
      await ackHanded(sessionKey);
      const notices = await store.pendingNotices(sessionKey);
      if (notices.length === 0) return modelData;
      handed.set(sessionKey, notices);
      return { ...modelData, input: [...modelData.input, noticesItem(notices)] };
    } catch (error) {
      try {
        logger.warn(`openai-agents: notices for ${sessionKey} were not added`, errorDetails(error));
      } catch {
        // R9: the logger is the runtime's code.
      }
      return modelData;
    }
  };
  return {
    callModelInputFilter,
    settle: async () => {
      const acked: Notice[] = [];
      for (const sessionKey of [...handed.keys()]) acked.push(...(await ackHanded(sessionKey)));
      return acked;
    },
  };
}
