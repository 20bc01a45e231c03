/**
 * T10, T12 on scope.ts by exact answers: checkCaller's refusals by field and text, and the spawn
 * tree read from a log, which names a parent only for a child_spawned event whose actor is an
 * agent with an agent-scoped key.
 */
import { describe, expect, it } from 'vitest';
import type { StateEvent } from '../../spec/index.js';
import { storeParentOf } from '../../src/tools/handlers.js';
import { MAX_TREE_DEPTH, checkCaller, scopeChecker, spawnParentFromLog } from '../../src/tools/scope.js';

describe('T10 checkCaller', () => {
  it('T10 refuses by field and says why', () => {
    expect(() => checkCaller(undefined, 'tree')).toThrow(expect.objectContaining({ field: 'visibility', message: 'visibility: needs a caller: visibility scopes what one session may see' }));
    expect(() => checkCaller('main', undefined)).toThrow(expect.objectContaining({ field: 'caller', message: 'caller: must be an agent-scoped session key (agent:<agentId>:...), got "main"' }));
    expect(() => checkCaller('agent:main:lead', 'everyone')).toThrow(expect.objectContaining({ field: 'visibility', message: 'visibility: must be one of: self, tree, agent, all' }));
    expect(checkCaller('agent:main:lead', 'agent')).toEqual({ sessionKey: 'agent:main:lead', agentId: 'main', visibility: 'agent' });
  });
});

describe('T12 the spawn tree from a log', () => {
  const log = (...events: Partial<StateEvent>[]) => ({
    changesSince: async () => ({ sessionKey: 'agent:main:child', agentId: 'main', stateVersion: 9, stateChanges: { events: events as StateEvent[], truncated: false, historyGap: false, stateVersion: 9 } }),
  });
  it('T12 names the parent only for an agent actor with an agent-scoped key; the first child_spawned decides', async () => {
    const cases: [Partial<StateEvent>[], string | undefined][] = [
      [[{ kind: 'child_spawned', actorType: 'agent', actorId: 'agent:main:lead' }], 'agent:main:lead'],
      [[{ kind: 'human_direct_message', actorType: 'agent', actorId: 'agent:main:x' }, { kind: 'child_spawned', actorType: 'agent', actorId: 'agent:main:lead' }], 'agent:main:lead'],
      [[{ kind: 'child_spawned', actorType: 'human', actorId: 'agent:main:lead' }], undefined],
      [[{ kind: 'child_spawned', actorType: 'system', actorId: 'agent:main:lead' }], undefined],
      [[{ kind: 'child_spawned', actorType: 'agent' }], undefined],
      [[{ kind: 'child_spawned', actorType: 'agent', actorId: 'main' }], undefined],
      [[{ kind: 'child_spawned', actorType: 'human', actorId: 'agent:main:x' }, { kind: 'child_spawned', actorType: 'agent', actorId: 'agent:main:lead' }], undefined],
      [[], undefined],
    ];
    for (const [events, parent] of cases) expect(await spawnParentFromLog(log(...events) as never)('agent:main:child', 'main'), JSON.stringify(events)).toBe(parent);
  });

  it('T12 a store without durable spawn parents is read through its log; one with them is asked', async () => {
    const fromLog = storeParentOf(log({ kind: 'child_spawned', actorType: 'agent', actorId: 'agent:main:lead' }) as never);
    expect(await fromLog('agent:main:child', 'main')).toBe('agent:main:lead');
    const durable = storeParentOf({ ...log(), spawnParent: async (key: string) => (key === 'agent:main:child' ? 'agent:main:boss' : undefined) } as never);
    expect(await durable('agent:main:child', 'main')).toBe('agent:main:boss');
  });
});

describe('T12 the distances a shared walk remembers', () => {
  it('T12 a chain checked deepest first: every ancestor the walk passed is as near the caller as it is, not as far as the deepest', () => {
    const lead = 'agent:main:lead';
    const chain = Array.from({ length: 20 }, (_, i) => `agent:main:c${i}`);
    const parent = (k: string) => (k === chain[0] ? lead : chain[chain.indexOf(k) - 1]);
    let asked = 0;
    const check = scopeChecker({ sessionKey: lead, agentId: 'main', visibility: 'tree' }, (k) => (asked++, parent(k)));
    // c19 is 20 steps from the caller, c0 one: all within MAX_TREE_DEPTH, each answered from the first walk.
    expect([...chain].reverse().map((k) => check(k, 'main'))).toEqual(chain.map(() => true));
    expect(asked).toBe(20);
    // Past the cap, the same chain longer: c32 (33 steps) is out, c31 (32 steps) in.
    const long = Array.from({ length: MAX_TREE_DEPTH + 1 }, (_, i) => `agent:main:l${i}`);
    const longParent = (k: string) => (k === long[0] ? lead : long[long.indexOf(k) - 1]);
    const checkLong = scopeChecker({ sessionKey: lead, agentId: 'main', visibility: 'tree' }, longParent);
    expect([...long].reverse().map((k) => checkLong(k, 'main'))).toEqual([false, ...long.slice(1).map(() => true)]);
  });
});
