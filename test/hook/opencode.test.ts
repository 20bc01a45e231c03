import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hooks, Plugin } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import { NOTICES_PREAMBLE } from '../../src/tools/text.js';
import { HOOK_MAX_NOTICES, type HookStore } from '../../src/integrations/hook-apply.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { nextPartId, sessionStatePlugin, type OpencodeHooksLike, type OpencodePartLike } from '../../src/integrations/opencode/index.js';
import { hookStoreOver } from './memory-hook-store.js';

/**
 * T61-T62: the kit's OpenCode plugin in-process, fed the payloads the pinned OpenCode handed a
 * plugin (test/hook/opencode-payloads/, checked against the binary by opencode-payloads.test.ts),
 * against a memory store. The real binary runs it in test/agents/opencode.test.ts.
 */
const fixture = <T = Record<string, unknown>>(name: string): T => JSON.parse(readFileSync(join(import.meta.dirname, 'opencode-payloads', `${name}.json`), 'utf8')) as T;
type EventPayload = { event: { id: string; type: string; properties: Record<string, unknown> } };
type ChatPayload = { input: { sessionID: string }; output: { message: { id: string; sessionID: string }; parts: OpencodePartLike[] } };

const CREATED = fixture<EventPayload>('session-created');
const PROMPT = fixture<ChatPayload>('chat-message');
const SESSION_ID = PROMPT.input.sessionID;
const KEY = `agent:opencode:${SESSION_ID}`;
const LEAD = 'agent:claude-code:lead';
const T0 = 1_767_225_600_000;
const KEY_LINE = `Session-state key of this session: "${KEY}". Pass it as watcherSessionKey to the session-state tools.`;
const NOTICE = `Session "${LEAD}" changed (other actor).`;

/** A fresh copy of a recorded chat.message, optionally as another message of the same session. */
function prompt(messageSuffix = ''): ChatPayload {
  const p = structuredClone(PROMPT);
  if (messageSuffix !== '') {
    p.output.message.id += messageSuffix;
    for (const part of p.output.parts) part['messageID'] = p.output.message.id;
  }
  return p;
}

/** The event OpenCode sends once it stored a part (the recorded one, about the given part). */
function stored(part: OpencodePartLike, suffix = ''): EventPayload {
  const e = structuredClone(fixture<EventPayload>('message-part-updated-plugin-text'));
  e.event.id += `${String(part.id)}${suffix}`;
  e.event.properties['part'] = part;
  return e;
}

interface Harness {
  store: MemoryStore;
  hooks: OpencodeHooksLike;
  logs: string[];
  gets: string[];
  /** A second plugin instance of the same factory (another plugin file naming the same database). */
  another(): Promise<OpencodeHooksLike>;
}

async function harness(options: { parentOf?: (id: string) => string | undefined; openStore?: () => HookStore; store?: MemoryStore; db?: string } = {}): Promise<Harness> {
  const store = options.store ?? createMemoryStore({ now: () => T0 });
  const logs: string[] = [];
  const gets: string[] = [];
  const plugin = sessionStatePlugin({
    db: options.db ?? '/tmp/team.db',
    openStore: options.openStore ?? (() => hookStoreOver(store)),
  });
  const input = {
    client: {
      app: { log: async ({ body }: { body: { level: string; message: string } }) => void logs.push(`${body.level}: ${body.message}`) },
      session: {
        get: async ({ path }: { path: { id: string } }) => {
          gets.push(path.id);
          const parentID = options.parentOf?.(path.id);
          return { data: { id: path.id, ...(parentID ? { parentID } : {}) } };
        },
      },
    },
  };
  return { store, hooks: await plugin(input), logs, gets, another: () => plugin(input) };
}

/** One person's prompt through the hook; returns the parts the kit added. */
async function say(hooks: OpencodeHooksLike, p: ChatPayload = prompt()): Promise<OpencodePartLike[]> {
  const before = p.output.parts.length;
  await hooks['chat.message'](p.input, p.output);
  return p.output.parts.slice(before);
}

function leadChanges(store: MemoryStore, n = 1): void {
  for (let i = 0; i < n; i++) store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: `the person ${i}` });
}

describe('T61 T62 the OpenCode plugin (recorded payloads, in-process)', () => {
  it('T61 its types are OpenCode\'s own: a Plugin whose hooks OpenCode accepts', async () => {
    const plugin: Plugin = sessionStatePlugin({ db: '/tmp/types.db' });
    const hooks: Hooks = await plugin({ client: { app: { log: async () => undefined } } } as never);
    expect(typeof hooks.event).toBe('function');
    expect(typeof hooks['chat.message']).toBe('function');
  });

  it('T61 session.created registers the session (one created, deduplicated) and says nothing yet; its first prompt tells the key once, as a text part after the person\'s', async () => {
    const h = await harness();
    await h.hooks.event(CREATED);
    await h.hooks.event({ event: { ...CREATED.event, id: `${CREATED.event.id}-again` } });
    expect(h.store.changesSince({ sessionKey: KEY, agentId: 'opencode', since: 0 }).stateChanges.events).toMatchObject([
      { kind: 'created', actorType: 'system', summary: 'session started via opencode', dedupeKey: `opencode:created:${SESSION_ID}` },
    ]);
    const p = prompt();
    const added = await say(h.hooks, p);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ type: 'text', text: KEY_LINE, sessionID: SESSION_ID, messageID: p.output.message.id, metadata: { sessionStateKit: true } });
    expect(String(added[0]!.id) > String(p.output.parts[0]!.id)).toBe(true);
    expect(added[0]!['synthetic']).toBeUndefined();
    // Stored: the key is no longer owed; the next prompt says nothing.
    await h.hooks.event(stored(added[0]!));
    expect(await say(h.hooks, prompt('-2'))).toEqual([]);
    expect(h.logs).toEqual([]);
  });

  it('T61 a person\'s prompt on a watched session is its turn (human_direct_message via opencode, once per OpenCode message id)', async () => {
    const h = await harness();
    h.store.watch({ watcherSessionKey: LEAD, targetSessionKey: KEY, agentId: 'opencode' });
    await h.hooks.event(CREATED);
    await say(h.hooks);
    const turn = { kind: 'human_direct_message', actorType: 'human', summary: 'human message via opencode', payload: { channel: 'opencode' }, dedupeKey: `opencode:prompt:${SESSION_ID}:${PROMPT.output.message.id}` };
    expect(h.store.changesSince({ sessionKey: KEY, agentId: 'opencode', since: 0 }).stateChanges.events).toMatchObject([{ kind: 'created' }, turn]);
    expect(h.store.pendingNotices(LEAD)).toHaveLength(1);
    // A second plugin file on the same database: the message is handled once.
    const other = await h.another();
    expect(await say(other)).toEqual([]);
    expect(h.store.stateVersion(KEY, 'opencode')).toBe(2);
  });

  it('T62 T39 pending notices go into the person\'s message as a text part marked as data, and are acked exactly when OpenCode reports that part stored', async () => {
    const h = await harness();
    await h.hooks.event(CREATED);
    await h.hooks.event(stored((await say(h.hooks))[0]!));
    h.store.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(h.store);
    const [part] = await say(h.hooks, prompt('-2'));
    // The key was told with the first prompt: the notice alone, after the line that says it is data.
    expect(String(part!.text).split('\n')).toEqual([NOTICES_PREAMBLE, expect.stringContaining(NOTICE)]);
    expect(h.store.pendingNotices(KEY)).toHaveLength(1);
    await h.hooks.event({ event: { id: 'evt-idle-other', type: 'session.idle', properties: { sessionID: 'ses_other' } } });
    expect(h.store.pendingNotices(KEY)).toHaveLength(1);
    await h.hooks.event(stored(part!));
    expect(h.store.pendingNotices(KEY)).toEqual([]);
    // Stored again (OpenCode updates a part): nothing more to ack, nothing fails.
    await h.hooks.event(stored(part!, '-again'));
    expect(h.logs).toEqual([]);
  });

  it('T62 a part that was never stored (the turn failed first) leaves its notices pending for the next prompt, which carries them again', async () => {
    const h = await harness();
    h.store.watch({ watcherSessionKey: KEY, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(h.store);
    await say(h.hooks);
    await h.hooks.event({ event: { id: 'evt-idle', type: 'session.idle', properties: { sessionID: SESSION_ID } } });
    expect(h.store.pendingNotices(KEY)).toHaveLength(1);
    const [again] = await say(h.hooks, prompt('-2'));
    expect(String(again!.text)).toContain(NOTICE);
  });

  it('T62 T17 past HOOK_MAX_NOTICES the part shows the first ones and a line counting the rest, and exactly those shown are acked', async () => {
    const h = await harness();
    const targets = Array.from({ length: HOOK_MAX_NOTICES + 3 }, (_, i) => `agent:claude-code:peer-${String(i).padStart(3, '0')}`);
    for (const t of targets) {
      h.store.watch({ watcherSessionKey: KEY, targetSessionKey: t, agentId: 'claude-code' });
      h.store.record({ sessionKey: t, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'x' });
    }
    const [part] = await say(h.hooks);
    // The key line (the session is new to the store, T51), the data line, the notices shown, the count of the rest.
    const lines = String(part!.text).split('\n');
    expect(lines.slice(0, 2)).toEqual([KEY_LINE, NOTICES_PREAMBLE]);
    expect(lines).toHaveLength(2 + HOOK_MAX_NOTICES + 1);
    expect(lines.at(-1)).toBe(`3 more pending notices not shown here: call session_notices with watcherSessionKey "${KEY}" to read them, or they follow with your next prompts.`);
    await h.hooks.event(stored(part!));
    expect(h.store.pendingNotices(KEY).map((n) => n.targetSessionKey)).toEqual(targets.slice(HOOK_MAX_NOTICES));
  });

  it('T61 a resume in a new process: a session it did not see start is asked of OpenCode once; its prompt registers it (deduplicated) without telling the key again', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const first = await harness({ store });
    await first.hooks.event(CREATED);
    await first.hooks.event(stored((await say(first.hooks))[0]!));
    const second = await harness({ store });
    expect(await say(second.hooks, prompt('-resumed'))).toEqual([]);
    expect(await say(second.hooks, prompt('-resumed-2'))).toEqual([]);
    expect(second.gets).toEqual([SESSION_ID]);
    expect(store.changesSince({ sessionKey: KEY, agentId: 'opencode', since: 0 }).stateChanges.events.map((e) => e.kind)).toEqual(['created']);
  });

  it('T61 a session new to the store that this process did not see start (the kit installed mid-session) is registered by its prompt, which tells the key', async () => {
    const h = await harness();
    const [part] = await say(h.hooks);
    expect(part!.text).toBe(KEY_LINE);
    expect(h.store.stateVersion(KEY, 'opencode')).toBe(1);
  });

  it('T61 a sub-agent\'s session (created with a parent) is not the person\'s: its prompt records nothing and gets no part', async () => {
    const h = await harness();
    const child = fixture<EventPayload>('session-created-subagent');
    const subPrompt = fixture<ChatPayload>('chat-message-subagent');
    const childKey = `agent:opencode:${subPrompt.input.sessionID}`;
    h.store.watch({ watcherSessionKey: childKey, targetSessionKey: LEAD, agentId: 'claude-code' });
    leadChanges(h.store);
    await h.hooks.event(child);
    expect(await say(h.hooks, subPrompt)).toEqual([]);
    expect(h.store.stateVersion(childKey, 'opencode')).toBe(0);
    expect(h.store.pendingNotices(childKey)).toHaveLength(1);
    // One OpenCode says is a sub-agent's, though this process did not see it start: the same.
    const asked = await harness({ parentOf: () => 'ses_parent' });
    expect(await say(asked.hooks, prompt())).toEqual([]);
    expect(asked.store.stateVersion(KEY, 'opencode')).toBe(0);
  });

  it('T61 T33 a compaction records compacted (automatic, as its compaction part says) and the next prompt tells the key again', async () => {
    const h = await harness();
    const part = fixture<EventPayload>('message-part-updated-compaction');
    const compacted = fixture<EventPayload>('session-compacted');
    const sessionId = (compacted.event.properties as { sessionID: string }).sessionID;
    const key = `agent:opencode:${sessionId}`;
    const p = prompt();
    p.input.sessionID = sessionId;
    p.output.message.sessionID = sessionId;
    await say(h.hooks, p);
    await h.hooks.event(part);
    await h.hooks.event(compacted);
    expect(h.store.changesSince({ sessionKey: key, agentId: 'opencode', since: 0 }).stateChanges.events.at(-1)).toMatchObject({ kind: 'compacted', actorType: 'system', summary: 'context compacted (auto) via opencode' });
    const next = prompt('-after');
    next.input.sessionID = sessionId;
    next.output.message.sessionID = sessionId;
    const [again] = await say(h.hooks, next);
    expect(again!.text).toBe(`Session-state key of this session: "${key}". Pass it as watcherSessionKey to the session-state tools.`);
    // A compaction OpenCode marks as not automatic (/compact) says so.
    await h.hooks.event({ event: { ...part.event, id: 'evt-manual-part', properties: { ...part.event.properties, part: { ...(part.event.properties['part'] as object), auto: false } } } });
    await h.hooks.event({ event: { ...compacted.event, id: 'evt-manual' } });
    expect(h.store.changesSince({ sessionKey: key, agentId: 'opencode', since: 0 }).stateChanges.events.at(-1)).toMatchObject({ summary: 'context compacted (manual) via opencode' });
  });

  it('T62 a store that cannot open or answer never fails the person\'s turn: the hook resolves, no part, one line in OpenCode\'s log, and the next prompt tries again', async () => {
    let opens = 0;
    const h = await harness({
      openStore: () => {
        if (++opens === 1) throw new Error('disk I/O error');
        return { record: () => undefined, stateVersion: () => 0, resetSession: () => undefined, pendingNotices: () => Promise.reject(new Error('database is locked')), ackNotices: () => [], close: () => undefined };
      },
    });
    expect(await say(h.hooks)).toEqual([]);
    expect(await say(h.hooks, prompt('-2'))).toEqual([]);
    expect(opens).toBe(2);
    expect(h.logs).toEqual([
      'warn: session-state-kit: chat.message: disk I/O error; the turn goes on without the session-state log',
      'warn: session-state-kit: chat.message: database is locked; the turn goes on without the session-state log',
    ]);
  });

  it('T62 T18 a database no other process could share is refused at load: the plugin says so in OpenCode\'s log and takes no part', async () => {
    const logs: string[] = [];
    const hooks = await sessionStatePlugin({ db: ':memory:' })({ client: { app: { log: ({ body }) => void logs.push(body.message) } } });
    const p = prompt();
    await hooks['chat.message'](p.input, p.output);
    await hooks.event(CREATED);
    expect(p.output.parts).toHaveLength(PROMPT.output.parts.length);
    expect(logs).toEqual([expect.stringMatching(/^session-state-kit: not taking part: --db ":memory:" is an in-memory database/)]);
  });

  it('T62 part ids sort after the message\'s own, in OpenCode\'s form', () => {
    const id = nextPartId([{ id: 'prt_249b62472001Pl2x1pgCx74P3k' }, { id: 'not-a-part-id' }], 0);
    expect(id).toMatch(/^prt_249b62472002[0-9A-Za-z]{14}$/);
    expect(nextPartId([], 1_000)).toMatch(/^prt_0000003e8000[0-9A-Za-z]{14}$/);
  });
});
