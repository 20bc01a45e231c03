import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from './run-hook.js';

/**
 * T56, T57: `hook qwen` as Qwen Code runs it, one process per event, on one SQLite file, fed the
 * payloads the pinned binary sent (test/hook/qwen-payloads/, recorded by record-qwen-payloads.ts).
 */
const payload = (name: string) => readFileSync(join(import.meta.dirname, 'qwen-payloads', `${name}.json`), 'utf8');
const field = (name: string, key: string) => String((JSON.parse(payload(name)) as Record<string, unknown>)[key]);
const ID = field('session-start-startup', 'session_id');
const SESSION = `agent:qwen:${ID}`;
const LEAD = 'agent:claude-code:lead';
const keyLine = (key: string) => `Session-state key of this session: "${key}". Pass it as watcherSessionKey to the session-state tools.`;
const open = (db: string) => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });

describe('T56 T57 Qwen Code command hook as a process', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook-qwen');
  const qwen = (db: string, input: string | Buffer) => runHook(cli.path(), ['qwen', '--db', db], input);

  it('T56 SessionStart registers agent:qwen:<session_id> and tells the model its key; a resume tells it again (Qwen rebuilt the system instruction without it) and records nothing more', async () => {
    const db = join(dir, 'start.db');
    const r = await qwen(db, payload('session-start-startup'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: keyLine(SESSION) } });
    expect(field('session-start-resume', 'session_id')).toBe(ID);
    const resumed = await qwen(db, payload('session-start-resume'));
    expect(JSON.parse(resumed.stdout).hookSpecificOutput.additionalContext).toBe(keyLine(SESSION));
    const store = open(db);
    try {
      expect(store.changesSince({ sessionKey: SESSION, since: 0, agentId: 'qwen' }).stateChanges.events.map((e) => [e.kind, e.summary])).toEqual([['created', 'session started via qwen']]);
    } finally {
      store.close();
    }
  });

  it('T56 a person\'s prompt is one notice for the session watching it; the same payload again is another turn (prompt_id is a counter that repeats), never deduplicated away', async () => {
    const db = join(dir, 'prompt.db');
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'qwen' });
    store.close();
    expect(await qwen(db, payload('user-prompt-submit'))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const lead = JSON.stringify({ session_id: 'lead', transcript_path: '/t', cwd: '/w', hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    const first = await runHook(cli.path(), ['claude-code', '--db', db], lead);
    expect(JSON.parse(first.stdout).hookSpecificOutput.additionalContext).toBe(`Session "${SESSION}" changed (other actor). Reconcile before acting: session_status sessionKey "${SESSION}" changesSince 0.`);
    await qwen(db, payload('user-prompt-submit'));
    const second = await runHook(cli.path(), ['claude-code', '--db', db], lead);
    expect(JSON.parse(second.stdout).hookSpecificOutput.additionalContext).toContain(`Session "${SESSION}" changed (other actor)`);
    const check = open(db);
    try {
      const events = check.changesSince({ sessionKey: SESSION, since: 0, agentId: 'qwen' }).stateChanges.events;
      expect(events.map((e) => [e.kind, e.actorType, e.summary, e.payload])).toEqual(Array(2).fill(['human_direct_message', 'human', 'human message via qwen', { channel: 'qwen' }]));
    } finally {
      check.close();
    }
  });

  it('T57 the notices reach the Qwen session with its next prompt, once, as additionalContext', async () => {
    const db = join(dir, 'back.db');
    const store = open(db);
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    store.close();
    const r = await qwen(db, payload('user-prompt-submit'));
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: `Session "${LEAD}" changed (other actor). Reconcile before acting: session_status sessionKey "${LEAD}" changesSince 0.` },
    });
    expect((await qwen(db, payload('user-prompt-submit'))).stdout).toBe('');
  });

  it('T56 T51 the empty prompt Qwen submits when a tool result continues the turn is no person\'s: nothing recorded, no notice taken mid-turn', async () => {
    const db = join(dir, 'tool.db');
    expect(field('user-prompt-submit-tool-result', 'prompt')).toBe('');
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'qwen' });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    store.close();
    const r = await qwen(db, payload('user-prompt-submit-tool-result'));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/empty prompt \(a tool result continuing the turn\)/);
    const check = open(db);
    try {
      expect(check.stateVersion(SESSION, 'qwen')).toBe(0);
      expect(check.pendingNotices(LEAD)).toEqual([]);
      expect(check.pendingNotices(SESSION)).toHaveLength(1);
    } finally {
      check.close();
    }
  });

  it('T56 /clear: SessionEnd (reason clear) resets the old session, its watchers hear of it; the start that follows registers the new id and introduces it', async () => {
    const db = join(dir, 'clear.db');
    await qwen(db, payload('session-start-startup'));
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'qwen' });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    expect(store.pendingNotices(SESSION)).toHaveLength(1);
    store.close();
    expect(field('session-end-clear', 'session_id')).toBe(ID);
    expect(await qwen(db, payload('session-end-clear'))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const next = field('session-start-clear', 'session_id');
    expect(next).not.toBe(ID);
    const started = await qwen(db, payload('session-start-clear'));
    expect(JSON.parse(started.stdout).hookSpecificOutput.additionalContext).toBe(keyLine(`agent:qwen:${next}`));
    const check = open(db);
    try {
      expect(check.changesSince({ sessionKey: SESSION, since: 1, agentId: 'qwen' }).stateChanges.events.map((e) => [e.kind, e.summary])).toEqual([['session_reset', 'session cleared via qwen']]);
      expect(check.pendingNotices(LEAD)).toHaveLength(1);
      // R50: the cleared session's own watches ended.
      expect(check.pendingNotices(SESSION)).toEqual([]);
      expect(check.changesSince({ sessionKey: `agent:qwen:${next}`, since: 0, agentId: 'qwen' }).stateChanges.events.map((e) => e.kind)).toEqual(['created']);
    } finally {
      check.close();
    }
  });

  it('T56 PostCompact records the compaction (log-only); the start after it tells the key again', async () => {
    const db = join(dir, 'compact.db');
    await qwen(db, payload('session-start-startup'));
    expect(await qwen(db, payload('post-compact'))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const again = await qwen(db, payload('session-start-compact'));
    expect(JSON.parse(again.stdout).hookSpecificOutput.additionalContext).toBe(keyLine(SESSION));
    const check = open(db);
    try {
      expect(check.changesSince({ sessionKey: SESSION, since: 0, agentId: 'qwen' }).stateChanges.events.map((e) => [e.kind, e.summary])).toEqual([
        ['created', 'session started via qwen'],
        ['compacted', 'context compacted (manual) via qwen'],
      ]);
    } finally {
      check.close();
    }
  });

  it('T56 T57 SubagentStart opens the child watched by its parent and prints nothing (the sub-agent never sees it); SubagentStop completes it', async () => {
    const db = join(dir, 'child.db');
    const start = await qwen(db, payload('subagent-start'));
    expect(start).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await qwen(db, payload('subagent-stop'))).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const child = `agent:qwen:subagent:${ID}:${field('subagent-start', 'agent_id')}`;
    const check = open(db);
    try {
      const events = check.changesSince({ sessionKey: child, since: 0, agentId: 'qwen' }).stateChanges.events;
      expect(events.map((e) => [e.kind, e.actorId])).toEqual([
        ['child_spawned', SESSION],
        ['run_completed', child],
      ]);
    } finally {
      check.close();
    }
  });

  it.each([
    ['Stop', payload('stop'), /ignored hook event "Stop"/],
    ['PreCompact', payload('pre-compact'), /ignored hook event "PreCompact"/],
    ['not JSON', 'not json', /input is not JSON/],
    ['an unknown SessionStart source', payload('session-start-startup').replace('"startup"', '"teleport"'), /source "teleport"/],
    ['a prompt inside a sub-agent', payload('user-prompt-submit').replace('"hook_event_name"', '"agent_id": "general-purpose-call_9",\n  "hook_event_name"'), /inside sub-agent "general-purpose-call_9"/],
    ['a session id that makes no key', payload('user-prompt-submit').replaceAll(ID, 'bell\\u0007'), /session_id "bell\\u0007" does not make a session key \(R1\): ignored, nothing written/],
    ['non-UTF-8 bytes', Buffer.concat([Buffer.from(payload('user-prompt-submit').slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from(payload('user-prompt-submit').slice(40))]), /not valid UTF-8/],
  ])('T57 %s: no opinion (exit 0, empty stdout), one line on stderr, no database created', async (_name, input, reason) => {
    const db = join(dir, `never-${Math.random().toString(36).slice(2)}.db`);
    const r = await qwen(db, input);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });
});
