import type { SessionStateStore, StateEvent } from '../../spec/index.js';

/**
 * The README's main job: a scripted multi-agent scenario that shows, step by step, what each
 * session sees. It runs against any contract store (in-memory by default).
 */
export interface DemoClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function demoClock(start = Date.UTC(2026, 0, 1, 9, 0, 0)): DemoClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

const MANAGER = 'agent:main:main';
const CHILD = 'agent:main:subagent:research';
const AGENT = 'main';

export async function runDemo(store: SessionStateStore, clock: DemoClock, print: (line: string) => void): Promise<void> {
  const step = (n: number, title: string) => print(`\n${n}. ${title}`);
  const show = (e: StateEvent | undefined) =>
    print(e ? `   recorded #${e.sequence} ${e.kind} (${e.actorType}): ${e.summary}` : '   (nothing recorded)');

  step(1, `The manager ${MANAGER} spawns a child ${CHILD}.`);
  show(
    await store.record({
      sessionKey: CHILD, agentId: AGENT, kind: 'child_spawned', actorType: 'agent', actorId: MANAGER,
      runId: 'run-1', dedupeKey: 'child-spawned:run-1', summary: 'child session spawned', watchers: [MANAGER],
    }),
  );
  print(`   the manager's cursor is seeded at the child's version ${await store.stateVersion(CHILD, AGENT)}; no notice (R14)`);

  clock.advance(60_000);
  step(2, 'A person steps into the child over Telegram, twice, and changes its goal.');
  show(await store.record({ sessionKey: CHILD, agentId: AGENT, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', payload: { channel: 'telegram' } }));
  show(await store.record({ sessionKey: CHILD, agentId: AGENT, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', payload: { channel: 'telegram' } }));
  show(await store.record({ sessionKey: CHILD, agentId: AGENT, kind: 'goal_changed', actorType: 'human', summary: 'goal updated', payload: { action: 'updated' } }));

  step(3, 'The manager has exactly one pending notice, however many changes came in (R24).');
  const pending = await store.pendingNotices(MANAGER);
  print(`   pending notices: ${pending.length}`);
  for (const n of pending) print(`   > ${n.text}`);

  step(4, 'The manager takes its turn: the notice is drained and acked (R27).');
  const drained = await store.drainNotices(MANAGER);
  const since = drained[0]?.lastSeenSequence ?? 0;
  print(`   drained ${drained.length} (cursor acked to the frozen watermark); reconciling with changesSince ${since}:`);
  const delta = await store.changesSince({ sessionKey: CHILD, agentId: AGENT, since });
  const compact = {
    stateVersion: delta.stateVersion,
    stateChanges: {
      events: delta.stateChanges.events.map((e) => ({ sequence: e.sequence, kind: e.kind, actorType: e.actorType, summary: e.summary })),
      historyGap: delta.stateChanges.historyGap,
      truncated: delta.stateChanges.truncated,
      earliestAvailableSequence: delta.stateChanges.earliestAvailableSequence,
    },
  };
  for (const line of JSON.stringify(compact, null, 2).split('\n')) print(`   ${line}`);

  step(5, 'Events #3 and #4 came after the notice froze at #2, so exactly one follow-up is queued (R28).');
  for (const n of await store.pendingNotices(MANAGER)) print(`   > ${n.text}`);
  const followUps = await store.drainNotices(MANAGER);
  print(`   the manager drains ${followUps.length}; now pending: ${(await store.pendingNotices(MANAGER)).length} (the pair is settled)`);

  step(6, 'The manager acts on the child itself; it is never told about its own action (R12).');
  await store.record({ sessionKey: CHILD, agentId: AGENT, kind: 'agent_message', actorType: 'agent', actorId: MANAGER, summary: 'message from manager' });
  print(`   pending notices for the manager: ${(await store.pendingNotices(MANAGER)).length}`);

  step(7, 'Forty days pass; pruning removes old history, but the head stays and the gap is exact (R33).');
  clock.advance(40 * 24 * 60 * 60 * 1000);
  await store.prune();
  const old = await store.changesSince({ sessionKey: CHILD, agentId: AGENT, since });
  print(`   stateVersion ${old.stateVersion}, events ${old.stateChanges.events.length}, historyGap ${old.stateChanges.historyGap} -> refresh the whole session instead of trusting a delta`);
}
