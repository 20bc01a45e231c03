import type { Agent, AgentInputItem, RunResult, Runner } from '@openai/agents';
import type { MaybePromise, Notice, NoticeAck } from '../../../spec/index.js';
import { validateSessionKey } from '../../core/index.js';
import { noticesText } from '../../tools/text.js';

/** The part of a store of the contract the notice helper reads and acks through. */
export interface NoticeStore {
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
}

export interface NoticeInput {
  /** The run's input with the notices in front (unchanged when there are none). */
  input: string | AgentInputItem[];
  /** The notices put in (R26 order). */
  notices: Notice[];
  /** T37: acknowledges exactly these notices (R27b); call it once the run took them. Returns those acked. */
  ack(): Promise<Notice[]>;
}

/**
 * T37: puts a session's pending notices (T7 text: the R23 lines, R26 order) in front of its next
 * run's input, as one system message. Reading acks nothing (R26): the caller acks once the run
 * took them, so a run that failed before its model saw them delivers them again (at least once).
 */
export async function withPendingNotices(store: NoticeStore, sessionKey: string, input: string | AgentInputItem[]): Promise<NoticeInput> {
  validateSessionKey(sessionKey, 'sessionKey');
  const notices = await store.pendingNotices(sessionKey);
  const ack = async () => (notices.length === 0 ? [] : await store.ackNotices(sessionKey, notices));
  if (notices.length === 0) return { input, notices, ack };
  const items: AgentInputItem[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
  return { input: [{ role: 'system', content: noticesText(notices) }, ...items], notices, ack };
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
