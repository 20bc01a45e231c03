import type { SessionStateStore, StateEvent } from '../../spec/index.js';

/**
 * The README's main job: a scripted multi-agent scenario that shows, step by step, what each
 * session sees. It runs against any contract store; the CLI runs it on the SQLite adapter.
 */
export interface DemoClock {
  now: () => number;
  advance: (ms: number) => void;
}

/** How far the scenario moves its clock (steps 2, 7 and 8): a file demo starts this long before the wall clock. */
export const DEMO_SPAN_MS = 60_000 + 40 * 24 * 60 * 60 * 1000 + 60_000;

export function demoClock(start = Date.UTC(2026, 0, 1, 9, 0, 0)): DemoClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface DemoOptions {
  /**
   * How step 8 restarts the process. The default is the contract's restart() (R29); the CLI
   * passes a real close-and-reopen when the store lives in a file. Returns the store to go on with.
   */
  restart?: (store: SessionStateStore) => Promise<{ store: SessionStateStore; how: string }>;
}

export const DEMO_MANAGER = 'agent:main:main';
export const DEMO_CHILD = 'agent:main:subagent:research';
export const DEMO_AGENT = 'main';
const MANAGER = DEMO_MANAGER;
const CHILD = DEMO_CHILD;
const AGENT = DEMO_AGENT;

/** JSON, pretty at the top and one line per event, so a delta fits on a screen. */
function deltaLines(value: { stateVersion: number; stateChanges: { events: object[]; historyGap: boolean; truncated: boolean; earliestAvailableSequence: number } }): string[] {
  const inline = (o: object) => `{ ${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`;
  const c = value.stateChanges;
  return [
    '{',
    `  "stateVersion": ${value.stateVersion},`,
    '  "stateChanges": {',
    '    "events": [',
    ...c.events.map((e, i) => `      ${inline(e)}${i < c.events.length - 1 ? ',' : ''}`),
    '    ],',
    `    "historyGap": ${c.historyGap},`,
    `    "truncated": ${c.truncated},`,
    `    "earliestAvailableSequence": ${c.earliestAvailableSequence}`,
    '  }',
    '}',
  ];
}

/** Runs the scenario; returns the store in use at the end (step 8 may have replaced it), for the caller to close. */
export async function runDemo(
  store: SessionStateStore,
  clock: DemoClock,
  print: (line: string) => void,
  options: DemoOptions = {},
): Promise<SessionStateStore> {
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
  for (const line of deltaLines(compact)) print(`   ${line}`);

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
  // cursor() is a diagnostic view both of our stores offer (not part of the contract).
  const view = store as Partial<{ cursor: (watcher: string, target: string, agentId: string) => unknown }>;
  if (typeof view.cursor === 'function') {
    const gone = (await view.cursor(MANAGER, CHILD, AGENT)) === undefined;
    print(`   the manager's idle cursor ${gone ? 'expired with the old history (R44)' : 'is still there'}`);
  }

  step(8, 'The manager watches again, a person writes, and the process restarts before the manager\'s turn.');
  const watched = await store.watch({ watcherSessionKey: MANAGER, targetSessionKey: CHILD, agentId: AGENT });
  print(`   watch -> watched ${watched.watched}: an explicit cursor at the child's version ${await store.stateVersion(CHILD, AGENT)} (R21)`);
  clock.advance(60_000);
  show(await store.record({ sessionKey: CHILD, agentId: AGENT, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', payload: { channel: 'telegram' } }));
  const before = await store.pendingNotices(MANAGER);
  print(`   pending before the restart: ${before.length}`);
  const restart = options.restart ?? (async (s: SessionStateStore) => (await s.restart(), { store: s, how: 'restart()' }));
  const restarted = await restart(store);
  store = restarted.store;
  const after = await store.pendingNotices(MANAGER);
  print(`   ${restarted.how}: the notice is the durable cursor itself, so nothing needed rebuilding (R29)`);
  for (const n of after) print(`   > ${n.text}`);
  const same = after.length === before.length && after.every((n, i) => n.text === before[i]?.text);
  print(`   pending after the restart: ${after.length}, ${same ? 'byte-identical to the one before' : 'DIFFERENT from before'}`);
  return store;
}
