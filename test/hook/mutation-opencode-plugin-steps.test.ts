import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HOOK_BUDGET_MS } from '../../src/integrations/hook-apply.js';
import { nextPartId, sessionStatePlugin, type HookStore, type OpencodeHooksLike, type OpencodePartLike } from '../../src/integrations/opencode/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { hookStoreOver } from './memory-hook-store.js';
import { KEY, LEAD, prompt, PROMPT, SESSION_ID, T0, type ChatPayload, type EventPayload } from './opencode-fixture.js';

/**
 * T61, T62, T33: the OpenCode plugin's steps one decision at a time: which events it dedupes by id
 * and which it ignores, what an acknowledgement needs, when the key is owed again, a sub-agent's
 * compaction, the budget, what its store logs, and input OpenCode did not fill in.
 */
const KEY_LINE = `Session-state key of this session: "${KEY}".`;

const event = (type: string, properties: Record<string, unknown>, id?: string): EventPayload => ({ event: { ...(id !== undefined ? { id } : {}), type, properties } as EventPayload['event'] });
const created = (id: string, sessionId = SESSION_ID, parentID?: string) => event('session.created', { info: { id: sessionId, ...(parentID !== undefined ? { parentID } : {}) } }, id);
const compacted = (id: string | undefined, sessionId = SESSION_ID) => event('session.compacted', { sessionID: sessionId }, id);
const stored = (part: OpencodePartLike, id: string) => event('message.part.updated', { part }, id);
const idle = (id: string) => event('session.idle', { sessionID: SESSION_ID }, id);

interface Setup {
  memory: MemoryStore;
  hooks: OpencodeHooksLike;
  logs: string[];
  acks: number;
}

async function setup(o: { clock?: () => number; store?: Partial<HookStore>; memory?: MemoryStore } = {}): Promise<Setup> {
  const memory = o.memory ?? createMemoryStore({ now: () => T0 });
  const s: Setup = { memory, hooks: undefined as never, logs: [], acks: 0 };
  const plugin = sessionStatePlugin({
    db: `/tmp/steps-${Math.random()}.db`,
    openStore: () => hookStoreOver(memory, { ackNotices: (w, n) => (s.acks++, memory.ackNotices(w, n)), ...o.store }),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
  });
  s.hooks = await plugin({ client: { app: { log: ({ body }) => void s.logs.push(`${body.level}|${body.message}`) }, session: { get: async () => ({ data: {} }) } } });
  return s;
}

async function say(s: Setup, p: ChatPayload): Promise<OpencodePartLike[]> {
  const before = p.output.parts.length;
  await s.hooks['chat.message'](p.input, p.output);
  return p.output.parts.slice(before);
}

const leadChanges = (memory: MemoryStore) => memory.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'the person' });

describe('T61 events: deduped by id, ignored when they mean nothing', () => {
  it('an event with an id is handled once; events without one each time; two ids are two events', async () => {
    const s = await setup();
    await s.hooks.event(created('e-created'));
    const head = s.memory.stateVersion(KEY, 'opencode');
    await s.hooks.event(compacted('e-1'));
    await s.hooks.event(compacted('e-1'));
    expect(s.memory.stateVersion(KEY, 'opencode')).toBe(head + 1);
    await s.hooks.event(compacted('e-2'));
    expect(s.memory.stateVersion(KEY, 'opencode')).toBe(head + 2);
    await s.hooks.event(compacted(undefined));
    await s.hooks.event(compacted(undefined));
    expect(s.memory.stateVersion(KEY, 'opencode')).toBe(head + 4);
    expect(s.logs).toEqual([]);
  });

  it('events the kit does not act on say nothing and write nothing', async () => {
    const s = await setup();
    await s.hooks.event(event('session.updated', { info: { id: SESSION_ID } }, 'u-1'));
    await s.hooks.event(event('session.created', { info: {} }, 'u-2'));
    expect(s.logs).toEqual([]);
    expect(s.memory.stateVersion(KEY, 'opencode')).toBe(0);
  });

  it('T33 a compaction with no compaction part before it is automatic; a sub-agent\'s compaction records nothing', async () => {
    const s = await setup();
    await s.hooks.event(created('c-0'));
    await s.hooks.event(compacted('c-1'));
    const last = s.memory.changesSince({ sessionKey: KEY, agentId: 'opencode', since: 0 }).stateChanges.events.at(-1)!;
    expect(last.kind).toBe('compacted');
    expect(last.summary).toBe('context compacted (auto) via opencode');
    await s.hooks.event(created('c-2', 'ses_child', SESSION_ID));
    await s.hooks.event(compacted('c-3', 'ses_child'));
    expect(s.memory.stateVersion('agent:opencode:ses_child', 'opencode')).toBe(0);
  });

  it('a session the plan refuses (an id too long for a key) is one warning, and nothing is written', async () => {
    const s = await setup();
    const long = `ses_${'x'.repeat(600)}`;
    await s.hooks.event(created('l-1', long));
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]).toMatch(/^warn\|session-state-kit: \S/);
    expect(s.logs[0]).not.toContain('session.created:');
  });
});

describe('T62 acknowledgements and the key line', () => {
  it('a stored part that carried only the key line acks nothing; one with notices acks them', async () => {
    const s = await setup();
    await s.hooks.event(created('k-0'));
    const [keyPart] = await say(s, prompt('-k1'));
    expect(String(keyPart!['text'])).toContain(KEY_LINE);
    await s.hooks.event(stored(keyPart!, 'k-1'));
    expect(s.acks).toBe(0);
    // An idle after it says nothing: nothing was pending.
    await s.hooks.event(idle('k-2'));
    expect(s.logs).toEqual([]);
    s.memory.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(s.memory);
    const [noticePart] = await say(s, prompt('-k3'));
    expect(String(noticePart!['text'])).not.toContain(KEY_LINE);
    await s.hooks.event(stored(noticePart!, 'k-4'));
    expect(s.acks).toBe(1);
    expect(s.memory.pendingNotices(KEY)).toEqual([]);
  });

  it('a part never stored that carried only the key line: the idle session logs nothing', async () => {
    const s = await setup();
    await s.hooks.event(created('i-0'));
    expect(await say(s, prompt('-i1'))).toHaveLength(1);
    await s.hooks.event(idle('i-2'));
    expect(s.logs).toEqual([]);
  });

  it('a session the store knew before this process saw it start owes no key line', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    memory.record({ sessionKey: KEY, agentId: 'opencode', kind: 'created', actorType: 'system', summary: 'earlier', dedupeKey: `opencode:created:${SESSION_ID}` });
    memory.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(memory);
    const s = await setup({ memory });
    await s.hooks.event(created('r-0'));
    const [part] = await say(s, prompt('-r1'));
    expect(String(part!['text'])).not.toContain(KEY_LINE);
    expect(String(part!['text'])).toContain(`Session "${LEAD}" changed`);
  });

  it('a compaction while a notice part waits to be stored: the key stays owed after that part is stored', async () => {
    const s = await setup();
    await s.hooks.event(created('o-0'));
    const [keyPart] = await say(s, prompt('-o1'));
    await s.hooks.event(stored(keyPart!, 'o-2'));
    s.memory.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(s.memory);
    const [noticePart] = await say(s, prompt('-o3'));
    expect(String(noticePart!['text'])).not.toContain(KEY_LINE);
    await s.hooks.event(compacted('o-4'));
    await s.hooks.event(stored(noticePart!, 'o-5'));
    const [again] = await say(s, prompt('-o6'));
    expect(String(again!['text'])).toContain(KEY_LINE);
  });
});

describe('T9 T62 the budget, the store\'s log and input OpenCode left out', () => {
  it('past the budget nothing is added and the plugin says where it gave up, once per step', async () => {
    let t = 0;
    const s = await setup({ clock: () => (t += HOOK_BUDGET_MS + 1) });
    await s.hooks.event(created('b-0'));
    const parts = await say(s, prompt('-b1'));
    expect(parts).toEqual([]);
    expect(s.logs).toHaveLength(2);
    for (const line of s.logs) expect(line).toMatch(/^warn\|session-state-kit: gave up before (recording|reading notices|printing) after \d+ ms/);
  });

  it('a store failure longer than a line is cut to its first line, at most 300 characters', async () => {
    const s = await setup({
      store: {
        pendingNotices: () => {
          throw new Error(`${'y'.repeat(400)}\nsecond line`);
        },
      },
    });
    await say(s, prompt('-f1'));
    expect(s.logs).toEqual([`warn|session-state-kit: chat.message: ${'y'.repeat(300)}; the turn goes on without the session-state log`]);
  });

  it('what the SQLite store logs goes to OpenCode\'s log, at its level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-opencode-log-'));
    const db = join(dir, 'state.db');
    try {
      const logs: string[] = [];
      // A clock that stands still: on a busy machine the first open could pass the budget (T9).
      const plugin = sessionStatePlugin({ db, clock: () => 0 });
      const hooks = await plugin({ client: { app: { log: ({ body }) => void logs.push(`${body.level}|${body.message}`) } } });
      await hooks['chat.message'](prompt('-s1').input, prompt('-s1').output);
      expect(logs).toEqual([]);
      const holder = new Database(db);
      try {
        holder.exec('BEGIN IMMEDIATE');
        await hooks['chat.message'](prompt('-s2').input, prompt('-s2').output);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      expect(logs.length).toBeGreaterThan(0);
      for (const line of logs) expect(line).toMatch(/^error\|session-state-kit: sqlite store: \w+ failed$/);
      await hooks.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a sub-agent question answered without data (or with none) is the person\'s session, with no warning', async () => {
    for (const answer of [{ data: {} }, {}, undefined]) {
      const memory = createMemoryStore({ now: () => T0 });
      const logs: string[] = [];
      const hooks = await sessionStatePlugin({ db: '/tmp/answer.db', openStore: () => hookStoreOver(memory) })({
        client: { app: { log: ({ body }) => void logs.push(body.message) }, session: { get: async () => answer } },
      });
      const p = prompt('-d1');
      await hooks['chat.message'](p.input, p.output);
      expect({ answer, logs, added: p.output.parts.length - PROMPT.output.parts.length }).toEqual({ answer, logs: [], added: 1 });
      await hooks.dispose();
    }
  });

  it('a plugin loaded without input, and a prompt without its input, still answer', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const hooks = await sessionStatePlugin({ db: '/tmp/no-input.db', openStore: () => hookStoreOver(memory) })(undefined as never);
    const p = prompt('-n1');
    await hooks['chat.message'](undefined as never, { ...p.output, message: { ...p.output.message, sessionID: SESSION_ID } });
    expect(p.output.parts.length).toBe(PROMPT.output.parts.length + 1);
    await hooks['chat.message'](undefined as never, undefined as never);
    await hooks['chat.message'](undefined as never, { parts: [] } as never);
    await hooks['chat.message']({ sessionID: SESSION_ID }, { message: undefined, parts: [] } as never);
    await hooks.dispose();
  });
});

describe('T62 nextPartId reads only ids that begin with prt_', () => {
  it('an id with prt_ inside it is not a part id', () => {
    const now = 1_767_225_600_123;
    const mine = nextPartId([], now).slice(4, 16);
    expect(nextPartId([{ id: 'xprt_ffffffffff00zzzzzzzzzzzzzz' }], now).slice(4, 16)).toBe(mine);
  });
});
