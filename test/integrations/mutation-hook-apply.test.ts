import { describe, expect, it } from 'vitest';
import type { Notice, RecordInput } from '../../spec/index.js';
import { applyHookPlan, hookContext, sharedDbProblem, type HookStore } from '../../src/integrations/hook-apply.js';
import type { HookPlan } from '../../src/integrations/hook-plan.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { NOTICES_PREAMBLE } from '../../src/tools/text.js';

/**
 * T9, T17, T18, T34, T43, T51-T52: what a hook run does with its plan, step by step: the budget
 * checked before each step, when the key line is due, the reset between the records and the
 * notices, the notices read only where the output reaches the model, and the text they make.
 */
const KEY = 'agent:codex:s-1';
const LEAD = 'agent:main:lead';
const T0 = 1_767_225_600_000;
const intro = `Session-state key of this session: "${KEY}". Pass it as watcherSessionKey to the session-state tools.`;
const created: RecordInput = { sessionKey: KEY, agentId: 'codex', kind: 'created', actorType: 'system', summary: 'session started via codex', dedupeKey: 'codex:created:s-1' };
const turn: RecordInput = { sessionKey: KEY, agentId: 'codex', kind: 'human_direct_message', actorType: 'human', summary: 'human message via codex' };

/** A store that writes down the order of what the run asked of it. */
function traced(memory: MemoryStore, calls: string[]): HookStore {
  return {
    record: (i) => (calls.push(`record ${i.kind}`), memory.record(i)),
    stateVersion: (k, a) => (calls.push('stateVersion'), memory.stateVersion(k, a)),
    resetSession: (k) => (calls.push(`reset ${k}`), memory.resetSession(k)),
    pendingNotices: (w) => (calls.push(`pending ${w}`), memory.pendingNotices(w)),
    ackNotices: (w, n) => (calls.push('ack'), memory.ackNotices(w, n)),
    close: () => undefined,
  };
}

function pendingFor(memory: MemoryStore, watcher: string): void {
  memory.watch({ watcherSessionKey: watcher, targetSessionKey: LEAD, agentId: 'main' });
  memory.record({ sessionKey: LEAD, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'x' });
}

describe('T18 sharedDbProblem: only a file every process can open', () => {
  it('T18 empty, :memory: and a file: URI in memory mode are refused by name; anything else is a path', () => {
    expect(sharedDbProblem('')).toBe('--db needs a file path; an empty path opens a private temporary database that no other process shares');
    expect(sharedDbProblem(' \t')).toBe(sharedDbProblem(''));
    for (const p of [':memory:', 'file:x?mode=memory', 'FILE:x?MODE=Memory', 'file:x?a=1&mode=memory', 'file:x?mode=memory&cache=shared']) {
      expect(sharedDbProblem(p)).toBe(`--db ${JSON.stringify(p)} is an in-memory database: nothing would be stored or shared with other sessions; pass a file path`);
    }
    for (const p of ['state.db', 'x?mode=memory', 'dir/file:x?mode=memory', 'file:x?mode=memoryx', 'file:x?mode=ro', 'file:x?xmode=memory', ':memory:x']) expect(sharedDbProblem(p)).toBeUndefined();
  });
});

describe('T9 T17 hookContext: the text for the model and exactly the notices in it', () => {
  const plan: HookPlan = { event: 'UserPromptSubmit', sessionKey: KEY, records: [], deliverTo: KEY };
  const notices = (n: number): Notice[] => Array.from({ length: n }, (_, i) => ({ text: `line ${i}` }) as Notice);

  it('T17 at most max notices, one line counting the rest (one or many), naming whose they are', () => {
    expect(hookContext(plan, [])).toBeUndefined();
    expect(hookContext({ ...plan, introduce: KEY }, [])).toEqual({ text: intro, shown: [] });
    const three = notices(3);
    expect(hookContext(plan, three, 2)).toEqual({ text: `line 0\nline 1\n1 more pending notice not shown here: call session_notices with watcherSessionKey "${KEY}" to read them, or they follow with your next prompts.`, shown: three.slice(0, 2) });
    expect(hookContext(plan, notices(4), { max: 1 })!.text.split('\n').at(-1)).toBe(`3 more pending notices not shown here: call session_notices with watcherSessionKey "${KEY}" to read them, or they follow with your next prompts.`);
    expect(hookContext({ ...plan, deliverTo: undefined }, three, 0)!.text).toBe(`3 more pending notices not shown here: call session_notices with watcherSessionKey "${KEY}" to read them, or they follow with your next prompts.`);
    expect(hookContext({ ...plan, deliverTo: 'agent:codex:other' }, three, 2)!.text).toContain('watcherSessionKey "agent:codex:other"');
    expect(hookContext(plan, three, 3)!.text).toBe('line 0\nline 1\nline 2');
  });

  it('T62 a preamble before the notices only where asked, and only when there are notices', () => {
    expect(hookContext({ ...plan, introduce: KEY }, notices(1), { noticesPreamble: true })!.text).toBe(`${intro}\n${NOTICES_PREAMBLE}\nline 0`);
    expect(hookContext({ ...plan, introduce: KEY }, [], { noticesPreamble: true })!.text).toBe(intro);
    expect(hookContext(plan, notices(1), { noticesPreamble: false })!.text).toBe('line 0');
  });
});

describe('T9 T34 T43 T51 T52 applyHookPlan, step by step', () => {
  it('T9 the budget is checked before each step: past it the run stops and prints nothing; at it the run goes on', async () => {
    for (const [spent, step, calls] of [
      [[501], 'recording', []],
      [[0, 501], 'reading notices', ['record human_direct_message']],
      [[0, 0, 501], 'printing', ['record human_direct_message', `pending ${KEY}`]],
    ] as const) {
      const memory = createMemoryStore({ now: () => T0 });
      const seen: string[] = [];
      const warnings: string[] = [];
      let i = 0;
      const out = await applyHookPlan({ event: 'UserPromptSubmit', sessionKey: KEY, records: [turn], deliverTo: KEY }, traced(memory, seen), { agentId: 'codex', carriesContext: true, warn: (l) => warnings.push(l), elapsedMs: () => spent[i++] ?? 0 });
      expect(out).toBeUndefined();
      expect(seen).toEqual(calls);
      expect(warnings).toEqual([`gave up before ${step} after 501 ms (the state database is busy or slow); nothing printed, pending notices wait for the next prompt`]);
    }
    const memory = createMemoryStore({ now: () => T0 });
    pendingFor(memory, KEY);
    const at = await applyHookPlan({ event: 'UserPromptSubmit', sessionKey: KEY, records: [turn], deliverTo: KEY }, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined, elapsedMs: () => 500 });
    expect(at?.context?.shown).toHaveLength(1);
  });

  it('T34 the reset comes after the records and before the notices; the result names whose notices it holds', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    pendingFor(memory, KEY);
    const seen: string[] = [];
    const out = await applyHookPlan({ event: 'SessionStart', sessionKey: KEY, records: [created], resetSession: 'agent:codex:old', deliverTo: KEY, introduce: KEY }, traced(memory, seen), { agentId: 'codex', carriesContext: true, warn: () => undefined });
    expect(seen).toEqual(['record created', 'reset agent:codex:old', `pending ${KEY}`]);
    expect(out).toEqual({ context: { text: `${intro}\n${memory.pendingNotices(KEY)[0]!.text}`, shown: memory.pendingNotices(KEY) }, deliverTo: KEY, introduced: true });
  });

  it('T43 an event whose output is not read as context reads no notices and says nothing, the records still written', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    pendingFor(memory, KEY);
    const seen: string[] = [];
    const out = await applyHookPlan({ event: 'Stop', sessionKey: KEY, records: [created], deliverTo: KEY, introduce: KEY }, traced(memory, seen), { agentId: 'codex', carriesContext: false, warn: () => undefined });
    expect(out).toEqual({ introduced: true });
    expect(seen).toEqual(['record created']);
  });

  it('T51 introduceOnlyIfNew: the key line only while the store knows no event of the session', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const plan: HookPlan = { event: 'SessionStart', sessionKey: KEY, records: [created], introduce: KEY, introduceOnlyIfNew: true };
    const first = await applyHookPlan(plan, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined });
    expect(first).toEqual({ context: { text: intro, shown: [] }, introduced: true });
    const again = await applyHookPlan(plan, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined });
    expect(again).toEqual({ introduced: false });
    // Without the flag the line is said whatever the head; a plan with no key says none.
    expect((await applyHookPlan({ ...plan, introduceOnlyIfNew: false }, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined }))?.introduced).toBe(true);
    const seen: string[] = [];
    expect(await applyHookPlan({ event: 'SessionStart', sessionKey: KEY, records: [], introduceOnlyIfNew: true }, traced(memory, seen), { agentId: 'codex', carriesContext: true, warn: () => undefined })).toEqual({ introduced: false });
    expect(seen).toEqual([]);
  });

  it('T52 introduceIfCreatedNow: the key line only when this run\'s own created record is the one inserted', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    memory.record(turn); // the first prompt ran beside the start: the head already counts a turn
    const plan: HookPlan = { event: 'SessionStart', sessionKey: KEY, records: [turn, created], introduce: KEY, introduceIfCreatedNow: true };
    expect((await applyHookPlan(plan, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined }))?.introduced).toBe(true);
    // A second run: the created record is a dedupe hit, at or below the head read before.
    expect((await applyHookPlan(plan, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined }))?.introduced).toBe(false);
    // A store that records nothing (it logged and swallowed a failure, R9) leaves the decision as it was.
    const silent: HookStore = { ...memory, record: () => undefined, stateVersion: () => 0, resetSession: () => undefined, pendingNotices: () => [], ackNotices: () => [], close: () => undefined };
    expect((await applyHookPlan(plan, silent, { agentId: 'codex', carriesContext: true, warn: () => undefined }))?.introduced).toBe(true);
    expect((await applyHookPlan({ ...plan, introduce: undefined }, memory, { agentId: 'codex', carriesContext: true, warn: () => undefined }))?.introduced).toBe(false);
  });
});
