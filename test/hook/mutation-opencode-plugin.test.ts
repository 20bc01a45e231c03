import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import { nextPartId, sessionStatePlugin, type OpencodeClientLike, type OpencodePartLike } from '../../src/integrations/opencode/index.js';
import { hookStoreOver } from './memory-hook-store.js';
import { fixture, KEY, LEAD, prompt, PROMPT, SESSION_ID, T0, type EventPayload } from './opencode-fixture.js';
import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';

/**
 * T61-T62: the OpenCode plugin's own decisions, one at a time: the part ids it makes, what a bad
 * option does, where its log lines go, a sub-agent question that fails, a part never stored, a
 * store that fails to open, and the last instance closing the store. opencode.test.ts runs the
 * recorded conversations through it.
 */


/** The 12 hex digits an id carries: OpenCode keeps the low 48 bits of time × 4096 + counter. */
const hex12 = (n: bigint) => (n & 0xffffffffffffn).toString(16).padStart(12, '0');

describe('T62 nextPartId: an id as OpenCode makes them, after every id of the message', () => {
  it('T62 prt_, 12 hex digits of the time × 4096 (or one past the latest part, compared in the 48 bits an id keeps), 14 base-62 characters', () => {
    const now = 1_767_225_600_123;
    const id = nextPartId([], now);
    expect(id).toMatch(/^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(id.slice(4, 16)).toBe(hex12(BigInt(now) * 4096n));
    const later = `prt_${hex12(BigInt(now) * 4096n + 77n)}ABCDEFGHIJKLMN`;
    expect(nextPartId([{ id: later }, { id: 'prt_0000000000ffxxxxxxxxxxxxxx' }, null, 'prt_x', { id: 42 }, { id: 'msg_ffffffffffff' }], now).slice(4, 16)).toBe(hex12(BigInt(now) * 4096n + 78n));
    // An earlier part does not pull the stamp back; an early time is padded to 12 digits.
    expect(nextPartId([{ id: 'prt_000000000001zzzzzzzzzzzzzz' }], now).slice(4, 16)).toBe(hex12(BigInt(now) * 4096n));
    expect(nextPartId([], 1).slice(4, 16)).toBe('000000001000');
    expect(nextPartId([], -5).slice(4, 16)).toBe('000000000000');
    // At the top of the 48 bits it can only equal the latest part, never wrap to the front.
    expect(nextPartId([{ id: 'prt_ffffffffffffzzzzzzzzzzzzzz' }], 0).slice(4, 16)).toBe('ffffffffffff');
    const many = new Set(Array.from({ length: 50 }, () => nextPartId([], now).slice(16)));
    expect(many.size).toBe(50);
  });
});

describe('T61 T62 the plugin around failures and bad options', () => {
  function client(logs: string[], extra: Partial<OpencodeClientLike> = {}): OpencodeClientLike {
    return { app: { log: async ({ body }) => void logs.push(`${body.service}|${body.level}|${body.message}`) }, ...extra };
  }

  it('T61 a bad option makes a plugin that takes no part, and says why once, as an error', async () => {
    for (const [options, why] of [
      [{ db: 42 as unknown as string }, 'db must be the path of the shared state database'],
      [{ db: ':memory:' }, '--db ":memory:" is an in-memory database: nothing would be stored or shared with other sessions; pass a file path'],
      [{ db: '' }, '--db needs a file path; an empty path opens a private temporary database that no other process shares'],
      [{ db: '/tmp/x.db', agentId: 'bad id' }, 'agentId must be an agent id, got "bad id"'],
    ] as const) {
      const logs: string[] = [];
      const warned: string[] = [];
      const memory = createMemoryStore({ now: () => T0 });
      const hooks = await sessionStatePlugin({ ...options, openStore: () => hookStoreOver(memory), warn: (l) => warned.push(l) })({ client: client(logs) });
      expect(logs).toEqual([`session-state-kit|error|session-state-kit: not taking part: ${why}`]);
      expect(warned).toEqual([`not taking part: ${why}`]);
      await hooks.event(fixture<EventPayload>('session-created'));
      const p = prompt();
      await hooks['chat.message'](p.input, p.output);
      expect(p.output.parts).toEqual(PROMPT.output.parts);
      expect(memory.stateVersion(KEY, 'opencode')).toBe(0);
      await hooks.dispose();
    }
  });

  it('T62 a log that throws or rejects holds nothing up; without a client the lines go to warn alone', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const warned: string[] = [];
    const plugin = sessionStatePlugin({ db: '/tmp/a.db', openStore: () => hookStoreOver(memory), warn: (l) => warned.push(l) });
    for (const c of [
      {
        app: {
          log: () => {
            throw new Error('no log');
          },
        },
      },
      { app: { log: () => Promise.reject(new Error('closed')) } },
      undefined,
    ]) {
      const hooks = await plugin(c === undefined ? {} : { client: c });
      await hooks['chat.message']({} as never, { message: { id: `m${warned.length}` }, parts: [] });
      await hooks.dispose();
    }
    expect(warned).toEqual(Array(3).fill('chat.message without a session id, a message id or parts: ignored'));
  });

  it('T61 a prompt without a session id, a message id or parts is ignored with one warning; the session id may come from the message', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const logs: string[] = [];
    const hooks = await sessionStatePlugin({ db: '/tmp/b.db', openStore: () => hookStoreOver(memory) })({ client: client(logs) });
    await hooks['chat.message']({} as never, { message: { id: 'm1' }, parts: [] });
    await hooks['chat.message']({ sessionID: SESSION_ID }, { message: {} as never, parts: [] });
    await hooks['chat.message']({ sessionID: SESSION_ID }, { message: { id: 'm2' } } as never);
    expect(logs).toEqual(Array(3).fill('session-state-kit|warn|session-state-kit: chat.message without a session id, a message id or parts: ignored'));
    const p = prompt('-x');
    await hooks['chat.message']({} as never, { message: { ...p.output.message, sessionID: SESSION_ID }, parts: p.output.parts });
    expect(p.output.parts.at(-1)).toMatchObject({ type: 'text', sessionID: SESSION_ID, metadata: { sessionStateKit: true } });
    expect(logs).toHaveLength(3);
  });

  it('T61 when OpenCode cannot say whether a session is a sub-agent\'s, it is taken for the person\'s, asked once', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const logs: string[] = [];
    let asked = 0;
    const hooks = await sessionStatePlugin({ db: '/tmp/c.db', openStore: () => hookStoreOver(memory) })({
      client: client(logs, {
        session: {
          get: () => {
            asked++;
            throw new Error('ECONNREFUSED\nstack');
          },
        },
      }),
    });
    const first = prompt('-1');
    await hooks['chat.message'](first.input, first.output);
    const second = prompt('-2');
    await hooks['chat.message'](second.input, second.output);
    expect(asked).toBe(1);
    expect(logs).toEqual([`session-state-kit|warn|session-state-kit: could not ask OpenCode whether session ${SESSION_ID} is a sub-agent's (ECONNREFUSED); taking it for the person's`]);
    expect(first.output.parts.length).toBe(PROMPT.output.parts.length + 1);
    // A parent named by OpenCode makes it a sub-agent's: nothing is added.
    const sub = await sessionStatePlugin({ db: '/tmp/d.db', openStore: () => hookStoreOver(memory) })({ client: client([], { session: { get: async () => ({ data: { parentID: 'ses_parent' } }) } }) });
    const p = prompt('-sub');
    await sub['chat.message'](p.input, p.output);
    expect(p.output.parts).toEqual(PROMPT.output.parts);
    // An empty parentID names no parent (a fresh store, so the key line is owed and shows the part).
    const fresh = createMemoryStore({ now: () => T0 });
    const empty = await sessionStatePlugin({ db: '/tmp/e.db', openStore: () => hookStoreOver(fresh) })({ client: client([], { session: { get: async () => ({ data: { parentID: '' } }) } }) });
    const q = prompt('-empty');
    await empty['chat.message'](q.input, q.output);
    expect(q.output.parts.length).toBe(PROMPT.output.parts.length + 1);
  });

  it('T62 notices in a part the turn never stored stay pending, and the idle session says so once', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const logs: string[] = [];
    const hooks = await sessionStatePlugin({ db: '/tmp/f.db', openStore: () => hookStoreOver(memory) })({ client: client(logs) });
    memory.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    memory.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'the person' });
    const p = prompt('-idle');
    await hooks['chat.message'](p.input, p.output);
    expect(String(p.output.parts.at(-1)!['text'])).toContain(`Session "${LEAD}" changed`);
    const idle = fixture<EventPayload>('session-idle');
    expect(idle.event.properties['sessionID']).toBe(SESSION_ID);
    await hooks.event(idle);
    expect(logs).toEqual([`session-state-kit|info|session-state-kit: 1 notice(s) for ${KEY} were not stored with the message; left pending for the next prompt`]);
    expect(memory.pendingNotices(KEY)).toHaveLength(1);
    // Another session's idle, or a second idle, says nothing more.
    await hooks.event({ event: { ...idle.event, id: `${idle.event.id}-2` } });
    await hooks.event({ event: { ...idle.event, id: `${idle.event.id}-3`, properties: { ...idle.event.properties, sessionID: 'ses_other' } } });
    expect(logs).toHaveLength(1);
  });

  it('T61 a store that fails to open is logged per step and tried again at the next; the last instance closes it, a failing close is no failure', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const logs: string[] = [];
    let opens = 0;
    let closes = 0;
    const plugin = sessionStatePlugin({
      db: '/tmp/g.db',
      openStore: () => {
        if (++opens === 1) throw new Error('SQLITE_BUSY: database is locked\nat open');
        return hookStoreOver(memory, {
          close: () => {
            closes++;
            throw new Error('already closed');
          },
        });
      },
    });
    const one = await plugin({ client: client(logs) });
    const two = await plugin({ client: client(logs) });
    const a = prompt('-a');
    await one['chat.message'](a.input, a.output);
    expect(logs).toEqual(['session-state-kit|warn|session-state-kit: chat.message: SQLITE_BUSY: database is locked; the turn goes on without the session-state log']);
    expect(a.output.parts).toEqual(PROMPT.output.parts);
    const b = prompt('-b');
    await two['chat.message'](b.input, b.output);
    expect(opens).toBe(2);
    expect(b.output.parts.length).toBe(PROMPT.output.parts.length + 1);
    await one.dispose();
    expect(closes).toBe(0);
    await two.dispose();
    expect(closes).toBe(1);
    // After the last one left, a new instance opens the store again.
    const three = await plugin({ client: client(logs) });
    const c = prompt('-c');
    await three['chat.message'](c.input, c.output);
    expect(opens).toBe(3);
    await three.dispose();
  });

  it('T62 a process remembers the last 4096 message ids it handled: an older one is handled again, a remembered one never', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    let planned = 0;
    // Each prompt handled reads the session's pending notices once: that read counts the prompts handled.
    const hooks = await sessionStatePlugin({ db: '/tmp/cap.db', openStore: () => hookStoreOver(memory, { pendingNotices: (w) => (planned++, memory.pendingNotices(w)) }) })({});
    const send = async (id: string) => {
      const p = prompt();
      p.output.message.id = id;
      await hooks['chat.message'](p.input, p.output);
    };
    for (let i = 0; i < 4096; i++) await send(`msg_${i}`);
    expect(planned).toBe(4096);
    await send('msg_0');
    expect(planned).toBe(4096);
    // The 4097th id pushes the oldest out, and only it.
    await send('msg_4096');
    expect(planned).toBe(4097);
    await send('msg_1');
    expect(planned).toBe(4097);
    await send('msg_0');
    expect(planned).toBe(4098);
    await hooks.dispose();
  });

  it('T61 without a store passed in, plugin instances on one database and agent share one SQLite store and one memory of ids, dropped with the last', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-opencode-shared-'));
    try {
      const db = join(dir, 'state.db');
      // A clock that stands still: on a busy machine a first open could pass the budget (T9).
      const still = () => 0;
      const logs: string[] = [];
      const one = await sessionStatePlugin({ db, clock: still })({ client: client(logs) });
      const two = await sessionStatePlugin({ db, clock: still })({ client: client(logs) });
      const other = await sessionStatePlugin({ db, agentId: 'opencode-b', clock: still })({ client: client(logs) });
      const a = prompt('-shared');
      await one['chat.message'](a.input, a.output);
      expect(a.output.parts.length).toBe(PROMPT.output.parts.length + 1);
      const reader = new SqliteStore({ path: db, logger: silentLogger, now: Date.now });
      try {
        expect(reader.stateVersion(KEY, 'opencode')).toBeGreaterThan(0);
        // A notice waits for the session: only a prompt that is handled hands it over.
        reader.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
        reader.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'a person typed' });
        expect(reader.pendingNotices(KEY)).toHaveLength(1);
      } finally {
        reader.close();
      }
      // The same message through the second instance of this process: handled once (the notice stays).
      const again = prompt('-shared');
      await two['chat.message'](again.input, again.output);
      expect(again.output.parts).toEqual(PROMPT.output.parts);
      const pending = new SqliteStore({ path: db, logger: silentLogger, now: Date.now });
      try {
        expect(pending.pendingNotices(KEY)).toHaveLength(1);
      } finally {
        pending.close();
      }
      // Another agent id is its own state: the same message id is its own.
      const b = prompt('-shared');
      await other['chat.message'](b.input, b.output);
      expect(b.output.parts.length).toBe(PROMPT.output.parts.length + 1);
      expect(logs).toEqual([]);
      const check = new SqliteStore({ path: db, logger: silentLogger, now: Date.now });
      try {
        expect(check.stateVersion(`agent:opencode-b:${SESSION_ID}`, 'opencode-b')).toBeGreaterThan(0);
      } finally {
        check.close();
      }
      await one.dispose();
      await other.dispose();
      // Still in use by `two`: the store stays open, and the message stays remembered.
      const remembered = prompt('-shared');
      await two['chat.message'](remembered.input, remembered.output);
      expect(remembered.output.parts).toEqual(PROMPT.output.parts);
      expect(logs).toEqual([]);
      await two.dispose();
      // All gone: a new instance starts with a fresh memory of ids; the message is handled again.
      const three = await sessionStatePlugin({ db, clock: still })({ client: client(logs) });
      const d = prompt('-shared');
      await three['chat.message'](d.input, d.output);
      expect(d.output.parts.length).toBe(PROMPT.output.parts.length + 1);
      expect(String(d.output.parts.at(-1)!['text'])).toContain(`Session "${LEAD}" changed (other actor).`);
      await three.dispose();
      expect(logs).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
