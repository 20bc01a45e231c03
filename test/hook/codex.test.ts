import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from './run-hook.js';

/** T40-T44: `hook codex` as Codex runs it, one process per event, on one SQLite file. */
const payload = (name: string) => readFileSync(join(import.meta.dirname, 'codex-payloads', `${name}.json`), 'utf8');
const THREAD = '019a7c2e-5b1d-7f30-9c4e-2d8a6b1f0e93';
const SESSION = `agent:codex:${THREAD}`;
const LEAD = 'agent:claude-code:lead';
const open = (db: string) => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });

describe('T40-T44 Codex command hook as a process', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook-codex');
  const codex = (db: string, input: string | Buffer) => runHook(cli.path(), ['codex', '--db', db], input);

  it('T40 SessionStart registers agent:codex:<session_id> and tells the model its key as additionalContext', async () => {
    const db = join(dir, 'start.db');
    const r = await codex(db, payload('session-start-startup'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: `Session-state key of this session: "${SESSION}". Pass it as watcherSessionKey to the session-state tools.` },
    });
    const store = open(db);
    try {
      expect(store.changesSince({ sessionKey: SESSION, since: 0, agentId: 'codex' }).stateChanges.events.map((e) => e.kind)).toEqual(['created']);
      // T40: a resume of the same thread is the same session: its `created` is deduplicated (R8).
      expect((await codex(db, payload('session-start-resume'))).code).toBe(0);
      expect(store.stateVersion(SESSION, 'codex')).toBe(1);
    } finally {
      store.close();
    }
  });

  it('T41 a person\'s prompt in Codex is one notice for the Claude Code session watching it, handed over once and acked', async () => {
    const db = join(dir, 'prompt.db');
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'codex' });
    store.close();
    const prompt = await codex(db, payload('user-prompt-submit'));
    expect(prompt).toMatchObject({ code: 0, stdout: '' });
    // The same prompt delivered twice (Codex retries a hook) is one turn: turn_id is its dedupe key.
    await codex(db, payload('user-prompt-submit'));
    const lead = JSON.stringify({ session_id: 'lead', transcript_path: '/t', cwd: '/w', hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    const first = await runHook(cli.path(), ['claude-code', '--db', db], lead);
    expect(JSON.parse(first.stdout).hookSpecificOutput.additionalContext).toBe(
      `Session "${SESSION}" changed (other actor). Reconcile before acting: session_status sessionKey "${SESSION}" changesSince 0.`,
    );
    expect((await runHook(cli.path(), ['claude-code', '--db', db], lead)).stdout).toBe('');
    const check = open(db);
    try {
      const events = check.changesSince({ sessionKey: SESSION, since: 0, agentId: 'codex' }).stateChanges.events;
      expect(events.map((e) => [e.kind, e.actorType, e.summary])).toEqual([['human_direct_message', 'human', 'human message via codex']]);
    } finally {
      check.close();
    }
  });

  it('T41 a notice for the Codex session reaches its model on the next prompt, and only once', async () => {
    const db = join(dir, 'back.db');
    const store = open(db);
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    store.close();
    const r = await codex(db, payload('user-prompt-submit'));
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: `Session "${LEAD}" changed (other actor). Reconcile before acting: session_status sessionKey "${LEAD}" changesSince 0.` },
    });
    expect((await codex(db, payload('user-prompt-submit'))).stdout).toBe('');
  });

  it('T41 a prompt inside a Codex sub-agent thread is not a person\'s turn', async () => {
    const db = join(dir, 'sub.db');
    const child = `agent:codex:${String(JSON.parse(payload('user-prompt-submit-subagent'))['session_id'])}`;
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: child, agentId: 'codex' });
    store.close();
    expect((await codex(db, payload('user-prompt-submit-subagent'))).code).toBe(0);
    const check = open(db);
    try {
      expect(check.changesSince({ sessionKey: child, since: 0, agentId: 'codex' }).stateChanges.events).toEqual([]);
      expect(check.pendingNotices(LEAD)).toEqual([]);
    } finally {
      check.close();
    }
  });

  it('T42 SessionStart after /clear records a reset its watchers hear of; PostCompact records the compaction', async () => {
    const db = join(dir, 'clear.db');
    await codex(db, payload('session-start-startup'));
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'codex' });
    store.close();
    await codex(db, payload('post-compact'));
    await codex(db, payload('session-start-clear'));
    const check = open(db);
    try {
      expect(check.changesSince({ sessionKey: SESSION, since: 1, agentId: 'codex' }).stateChanges.events.map((e) => [e.kind, e.summary])).toEqual([
        ['compacted', 'context compacted (auto) via codex'],
        ['session_reset', 'session cleared via codex'],
      ]);
      expect(check.pendingNotices(LEAD)).toHaveLength(1);
    } finally {
      check.close();
    }
  });

  it('T32 SubagentStart opens the child watched by its parent and introduces its key; SubagentStop prints nothing (Codex reads no context there)', async () => {
    const db = join(dir, 'child.db');
    const start = await codex(db, payload('subagent-start'));
    const child = `agent:codex:subagent:${THREAD}:019a7c2f-0c44-7aa1-b2d9-6e5f3c8a1b20`;
    expect(JSON.parse(start.stdout).hookSpecificOutput).toEqual({ hookEventName: 'SubagentStart', additionalContext: `Session-state key of this session: "${child}". Pass it as watcherSessionKey to the session-state tools.` });
    const stop = await codex(db, payload('subagent-stop'));
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const check = open(db);
    try {
      expect(check.changesSince({ sessionKey: child, since: 0, agentId: 'codex' }).stateChanges.events.map((e) => e.kind)).toEqual(['child_spawned', 'run_completed']);
    } finally {
      check.close();
    }
  });

  it.each([
    ['Stop', payload('stop'), /ignored hook event "Stop"/],
    ['PreCompact', payload('pre-compact'), /ignored hook event "PreCompact"/],
    ['not JSON', 'not json', /input is not JSON/],
    ['an unknown SessionStart source', payload('session-start-startup').replace('"startup"', '"teleport"'), /source "teleport"/],
    ['a session id that makes no key', payload('user-prompt-submit').replace(THREAD, 'bell\\u0007'), /session_id "bell\\u0007" does not make a session key \(R1\): ignored, nothing written/],
    ['non-UTF-8 bytes', Buffer.concat([Buffer.from(payload('user-prompt-submit').slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from(payload('user-prompt-submit').slice(40))]), /not valid UTF-8/],
  ])('T43 %s: no opinion (exit 0, empty stdout), one line on stderr, no database created', async (_name, input, reason) => {
    const db = join(dir, `never-${Math.random().toString(36).slice(2)}.db`);
    const r = await codex(db, input);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });
});
