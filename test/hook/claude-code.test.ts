import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { HOOK_MAX_NOTICES, runClaudeCodeHook } from '../../src/cli/hook.js';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from './run-hook.js';
import { hookStoreOver } from './memory-hook-store.js';

const payload = (name: string) => readFileSync(join(import.meta.dirname, 'payloads', `${name}.json`), 'utf8');
/** A recorded payload with one field changed (undefined drops it): only that field is wrong. */
const withField = (name: string, field: string, value: unknown) => JSON.stringify({ ...(JSON.parse(payload(name)) as Record<string, unknown>), [field]: value });
const SESSION = 'agent:claude-code:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11';
const LEAD = 'agent:claude-code:lead';
const T0 = 1_767_225_600_000;
const IDENTITY = `Session-state key of this session: "${SESSION}". Pass it as watcherSessionKey to the session-state tools.`;

/** One hook run in-process against a memory store (kept open across runs, as a file would be). */
async function hook(store: MemoryStore, input: string, options: { write?: (text: string) => Promise<void>; agentId?: string; reachesReader?: () => boolean } = {}) {
  const out: string[] = [];
  const warnings: string[] = [];
  let opened = 0;
  await runClaudeCodeHook({
    input,
    agentId: options.agentId ?? 'claude-code',
    openStore: () => {
      opened++;
      return hookStoreOver(store);
    },
    write: options.write ?? (async (text) => void out.push(text)),
    warn: (line) => void warnings.push(line),
    ...(options.reachesReader ? { reachesReader: options.reachesReader } : {}),
  });
  return { out, warnings, opened, context: out.length ? (JSON.parse(out.join('')) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput : undefined };
}

function watched(store: MemoryStore): void {
  store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' });
}

describe('T9 Claude Code hook (recorded payloads, in-process)', () => {
  it('T9 SessionStart registers the session once and tells the model its key', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const first = await hook(store, payload('session-start-startup'));
    expect(first.context).toEqual({ hookEventName: 'SessionStart', additionalContext: IDENTITY });
    expect(store.changesSince({ sessionKey: SESSION, agentId: 'claude-code', since: 0 }).stateChanges.events).toMatchObject([
      { kind: 'created', actorType: 'system', summary: 'session started via claude-code', dedupeKey: 'claude-code:created:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11' },
    ]);
    await hook(store, payload('session-start-resume'));
    expect(store.stateVersion(SESSION, 'claude-code')).toBe(1);
  });

  it('T9 UserPromptSubmit on a session nobody watches records nothing and prints nothing (R9b)', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const r = await hook(store, payload('user-prompt-submit'));
    expect(r).toMatchObject({ out: [], warnings: [], opened: 1 });
    expect(store.stateVersion(SESSION, 'claude-code')).toBe(0);
  });

  it("T9 UserPromptSubmit records the person's turn for the watchers, deduped by prompt_id", async () => {
    const store = createMemoryStore({ now: () => T0 });
    watched(store);
    await hook(store, payload('user-prompt-submit'));
    await hook(store, payload('user-prompt-submit-with-prompt-id'));
    await hook(store, payload('user-prompt-submit-with-prompt-id'));
    const events = store.changesSince({ sessionKey: SESSION, agentId: 'claude-code', since: 0 }).stateChanges.events;
    expect(events.map((e) => [e.kind, e.actorType, e.summary, e.dedupeKey])).toEqual([
      ['human_direct_message', 'human', 'human message via claude-code', undefined],
      ['human_direct_message', 'human', 'human message via claude-code', 'claude-code:prompt:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11:b1d2e3f4-0a9b-4c8d-9e7f-123456789abc'],
    ]);
    expect(store.pendingNotices(LEAD)).toHaveLength(1);
  });

  it("T9 the watcher's next prompt prints its notices and acknowledges them only after the write", async () => {
    const store = createMemoryStore({ now: () => T0 });
    watched(store);
    await hook(store, payload('user-prompt-submit'));
    const lead = payload('user-prompt-submit').replace('3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11', 'lead');
    const line = `Session "${SESSION}" changed (other actor). Reconcile before acting: session_status sessionKey "${SESSION}" changesSince 0.`;

    // The write fails: nothing was delivered, so the notice stays pending.
    const failed = await hook(store, lead, { write: () => Promise.reject(new Error('EPIPE')) });
    expect(failed.warnings).toEqual(['could not write the hook output: EPIPE']);
    expect(store.pendingNotices(LEAD).map((n) => n.text)).toEqual([line]);

    // While the write is under way another change lands: the printed notice is acked, the
    // follow-up (R28) quoting the newer watermark stays for the next prompt.
    const printed = await hook(store, lead, {
      write: async () => void store.record({ sessionKey: SESSION, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' }),
    });
    expect(printed.warnings).toEqual([]);
    expect(store.pendingNotices(LEAD).map((n) => n.lastSeenSequence)).toEqual([1]);

    const next = await hook(store, lead);
    expect(next.context).toEqual({ hookEventName: 'UserPromptSubmit', additionalContext: line.replace('changesSince 0.', 'changesSince 1.') });
    expect(store.pendingNotices(LEAD)).toEqual([]);
  });

  it('T51 SessionStart tells a session new to the store its key and leaves the notices to the prompt that follows; a resume is told nothing again', async () => {
    const store = createMemoryStore({ now: () => T0 });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const started = await hook(store, payload('session-start-resume'));
    expect(started.context?.additionalContext.split('\n')).toEqual([IDENTITY]);
    expect(store.pendingNotices(SESSION)).toHaveLength(1);
    // The prompt of the same turn hands the notice over, once, and acks it.
    const prompted = await hook(store, payload('user-prompt-submit'));
    expect(prompted.context?.additionalContext.split('\n')).toEqual([`Session "${LEAD}" changed (other actor). Reconcile before acting: session_status sessionKey "${LEAD}" changesSince 0.`]);
    expect(store.pendingNotices(SESSION)).toEqual([]);
    // A later resume: the model was told its key already (the session has a head), so nothing is printed.
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated again' });
    const resumed = await hook(store, payload('session-start-resume'));
    expect(resumed.out).toEqual([]);
    expect(store.pendingNotices(SESSION)).toHaveLength(1);
  });

  it('T17 dedupe keys include the agent: one Claude Code session under two --agent values on one file registers under both', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await hook(store, payload('session-start-startup'));
    const other = await hook(store, payload('session-start-startup'), { agentId: 'reviewer' });
    expect(other.context?.additionalContext).toContain('"agent:reviewer:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11"');
    const REVIEWER = 'agent:reviewer:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11';
    const kinds = (sessionKey: string, agentId: string) => store.changesSince({ sessionKey, agentId, since: 0 }).stateChanges.events.map((e) => e.kind);
    expect(kinds(SESSION, 'claude-code')).toEqual(['created']);
    expect(kinds(REVIEWER, 'reviewer')).toEqual(['created']);
    expect(store.changesSince({ sessionKey: REVIEWER, agentId: 'reviewer', since: 0 }).stateChanges.events[0]?.dedupeKey).toBe('claude-code@reviewer:created:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11');
    // The prompt's dedupe key too: the same prompt_id under another agent is another turn.
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' });
    store.watch({ watcherSessionKey: 'agent:reviewer:lead', targetSessionKey: 'agent:reviewer:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11', agentId: 'reviewer' });
    await hook(store, payload('user-prompt-submit-with-prompt-id'));
    await hook(store, payload('user-prompt-submit-with-prompt-id'), { agentId: 'reviewer' });
    expect(kinds(REVIEWER, 'reviewer')).toEqual(['created', 'human_direct_message']);
    // And a sub-agent's (T32): the same Claude Code sub-agent under each agent is a child of each.
    await hook(store, payload('subagent-start'));
    await hook(store, payload('subagent-start'), { agentId: 'reviewer' });
    const child = (agentId: string) => store.changesSince({ sessionKey: `agent:${agentId}:subagent:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11:a7c41e09`, agentId, since: 0 }).stateChanges.events;
    expect(child('claude-code').map((e) => e.dedupeKey)).toEqual(['claude-code:subagent:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11:a7c41e09']);
    expect(child('reviewer').map((e) => e.dedupeKey)).toEqual(['claude-code@reviewer:subagent:3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11:a7c41e09']);
  });

  it('T17 past HOOK_MAX_NOTICES it shows the first ones in R26 order, one line counting the rest, and acks exactly those shown', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const n = 10_001; // one more than ackNotices takes in one call: the whole set used to be acked never
    const targets = Array.from({ length: n }, (_, i) => `agent:claude-code:t${String(i).padStart(5, '0')}`);
    for (const t of targets) store.watch({ watcherSessionKey: SESSION, targetSessionKey: t, agentId: 'claude-code' });
    for (const t of targets) store.record({ sessionKey: t, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const r = await hook(store, payload('user-prompt-submit'));
    const lines = r.context!.additionalContext.split('\n');
    expect(lines).toHaveLength(HOOK_MAX_NOTICES + 1);
    expect(lines.slice(0, HOOK_MAX_NOTICES)).toEqual(targets.slice(0, HOOK_MAX_NOTICES).map((t) => `Session "${t}" changed (other actor). Reconcile before acting: session_status sessionKey "${t}" changesSince 0.`));
    expect(lines[HOOK_MAX_NOTICES]).toBe(
      `${n - HOOK_MAX_NOTICES} more pending notices not shown here: call session_notices with watcherSessionKey "${SESSION}" to read them, or they follow with your next prompts.`,
    );
    expect(r.out.join('').length).toBeLessThan(20_000);
    const left = store.pendingNotices(SESSION);
    expect(left).toHaveLength(n - HOOK_MAX_NOTICES);
    expect(left[0]!.targetSessionKey).toBe(targets[HOOK_MAX_NOTICES]);
  });

  it('T17 a write that reaches no reader (stdout closed) acknowledges nothing', async () => {
    const store = createMemoryStore({ now: () => T0 });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const r = await hook(store, payload('user-prompt-submit'), { reachesReader: () => false });
    expect(r.warnings).toEqual(['stdout reaches no reader (closed or /dev/null): 1 notice(s) left pending, not acknowledged']);
    expect(store.pendingNotices(SESSION)).toHaveLength(1);
  });

  const unusable: [string, string][] = [
    ['not JSON', '{"session_id": '],
    ['an array', '[]'],
    ['another event', payload('stop')],
    ['no session id', withField('user-prompt-submit', 'session_id', undefined)],
    ['a numeric session id', withField('user-prompt-submit', 'session_id', 7)],
    ['a session id with a quote', withField('session-start-startup', 'session_id', 'a"b')],
    ['a session id with a newline', withField('session-start-startup', 'session_id', 'a\nb')],
    ['a sub-agent id with a quote', withField('subagent-start', 'agent_id', 'a"b')],
    ['a sub-agent id that is not a string', withField('subagent-stop', 'agent_id', 7)],
    ['an empty input', ''],
  ];
  it.each(unusable)('T9 %s: one warning, the store is never opened', async (_what, input) => {
    const store = createMemoryStore({ now: () => T0 });
    const r = await hook(store, input);
    expect(r.out).toEqual([]);
    expect(r.warnings).toHaveLength(1);
    expect(r.opened).toBe(0);
  });
});

describe('T9 Claude Code hook as a process', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook');

  it('T9 SessionStart from stdin: the context JSON on stdout, exit 0, the session in the file', async () => {
    const db = join(dir, 'start.db');
    const r = await runHook(cli.path(), ['claude-code', '--db', db], payload('session-start-startup'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: IDENTITY } });
    const store = createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
    try {
      expect(store.stateVersion(SESSION, 'claude-code')).toBe(1);
    } finally {
      store.close();
    }
  });

  it('T9 a notice written by one hook process reaches the watcher through the next one', async () => {
    const db = join(dir, 'two.db');
    const store = createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' });
    store.close();
    expect((await runHook(cli.path(), ['claude-code', '--db', db], payload('user-prompt-submit'))).stdout).toBe('');
    const lead = await runHook(cli.path(), ['claude-code', '--db', db], payload('user-prompt-submit').replace('3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11', 'lead'));
    expect(lead.code).toBe(0);
    expect(JSON.parse(lead.stdout).hookSpecificOutput.additionalContext).toBe(
      `Session "${SESSION}" changed (other actor). Reconcile before acting: session_status sessionKey "${SESSION}" changesSince 0.`,
    );
    const again = await runHook(cli.path(), ['claude-code', '--db', db], payload('user-prompt-submit').replace('3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11', 'lead'));
    expect(again.stdout).toBe('');
  });

  it('T9 malformed input: exit 0, nothing on stdout, one line on stderr, no database created', async () => {
    const db = join(dir, 'never.db');
    const r = await runHook(cli.path(), ['claude-code', '--db', db], 'not json at all');
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr.trimEnd().split('\n')).toEqual(['session-state-kit hook: input is not JSON']);
    expect(existsSync(db)).toBe(false);
  });

  it('T9 a bad command line exits 1, never 2 (which would block the prompt)', async () => {
    const r = await runHook(cli.path(), ['claude-code'], payload('user-prompt-submit'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs --db <file>/);
    const unknown = await runHook(cli.path(), ['claude-code', '--db', join(dir, 'x.db'), '--nope'], payload('user-prompt-submit'));
    expect(unknown.code).toBe(1);
  });

  it('T17 stdin that is not UTF-8 is refused, not decoded lossily into another session id: exit 0, nothing written', async () => {
    const db = join(dir, 'latin1.db');
    const bytes = Buffer.concat([Buffer.from('{"hook_event_name":"SessionStart","session_id":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const r = await runHook(cli.path(), ['claude-code', '--db', db], bytes);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr.trimEnd().split('\n')).toEqual(['session-state-kit hook: could not read stdin: input is not valid UTF-8']);
    expect(existsSync(db)).toBe(false);
  });

  it('T17 with stdout closed the notices stay pending (the OS hands the hook /dev/null)', async () => {
    const db = join(dir, 'closed.db');
    const store = createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    store.close();
    const r = await runHook(cli.path(), ['claude-code', '--db', db], payload('user-prompt-submit'), { stdout: 'ignore' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stdout reaches no reader');
    const after = createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
    try {
      expect(after.pendingNotices(SESSION)).toHaveLength(1);
    } finally {
      after.close();
    }
  });

  it.each([[''], [':memory:'], ['file:x?mode=memory']])('T18 --db %j is refused by name: exit 1, nothing read', async (db) => {
    const r = await runHook(cli.path(), ['claude-code', '--db', db], payload('session-start-startup'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--db (needs a file path|".*" is an in-memory database)/);
  });
});
