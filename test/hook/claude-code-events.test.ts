import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from './run-hook.js';

/**
 * The events the command hook shares with the Claude Agent SDK hooks (T9 planned as T30-T34), each
 * run through the built CLI as Claude Code runs it: one process per event, the payload fixture on
 * stdin, the state in a SQLite file.
 */
const payload = (name: string) => readFileSync(join(import.meta.dirname, 'payloads', `${name}.json`), 'utf8');
const SID = '3f6c1a52-7d0e-4c53-9a47-0b2f9e8d4c11';
const SESSION = `agent:claude-code:${SID}`;
const CHILD = `agent:claude-code:subagent:${SID}:a7c41e09`;
const LEAD = 'agent:claude-code:lead';

describe('T9 Claude Code hook: the shared events, as a process', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook-events');
  const open = (db: string): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
  const withStore = <T>(db: string, use: (store: SqliteStore) => T): T => {
    const store = open(db);
    try {
      return use(store);
    } finally {
      store.close();
    }
  };
  const events = (store: SqliteStore, sessionKey: string) => store.changesSince({ sessionKey, agentId: 'claude-code', since: 0 }).stateChanges.events;
  const hook = (db: string, name: string) => runHook(cli.path(), ['claude-code', '--db', db], payload(name));

  it('T32 SubagentStart opens the child session seeded for its parent (R14) and tells the sub-agent its key; SubagentStop records run_completed, which the parent does not hear of (R16)', async () => {
    const db = join(dir, 'subagent.db');
    const start = await hook(db, 'subagent-start');
    expect(start).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(start.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: `Session-state key of this session: "${CHILD}". Pass it as watcherSessionKey to the session-state tools.` },
    });
    const spawned = withStore(db, (store) => {
      const [spawn] = events(store, CHILD);
      expect(spawn).toMatchObject({ kind: 'child_spawned', actorType: 'agent', actorId: SESSION, summary: 'subagent started via claude-code' });
      // The parent's cursor was seeded at the spawn: the person writing to the child reaches it.
      store.record({ sessionKey: CHILD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
      expect(store.pendingNotices(SESSION).map((n) => [n.targetSessionKey, n.lastSeenSequence])).toEqual([[CHILD, spawn!.sequence]]);
      store.drainNotices(SESSION);
      return spawn!.sequence;
    });
    // A second start of the same sub-agent (a retried hook) registers nothing new.
    expect((await hook(db, 'subagent-start')).code).toBe(0);
    const stop = await hook(db, 'subagent-stop');
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    withStore(db, (store) => {
      const all = events(store, CHILD);
      expect(all.map((e) => e.kind)).toEqual(['child_spawned', 'human_direct_message', 'run_completed']);
      expect(all[0]!.sequence).toBe(spawned);
      expect(all[2]).toMatchObject({ actorType: 'agent', actorId: CHILD, summary: 'subagent finished via claude-code' });
      expect(JSON.stringify(all)).not.toContain('MIGRATION.md');
      expect(store.pendingNotices(SESSION)).toEqual([]);
    });
  });

  it('T33 PostCompact records compacted, log-only (R17): no watcher hears of it, nothing printed, the summary text not stored', async () => {
    const db = join(dir, 'compact.db');
    withStore(db, (store) => store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' }));
    const r = await hook(db, 'post-compact');
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    withStore(db, (store) => {
      const all = events(store, SESSION);
      expect(all.map((e) => [e.kind, e.actorType, e.summary])).toEqual([['compacted', 'system', 'context compacted (auto) via claude-code']]);
      expect(JSON.stringify(all)).not.toContain('feature flag');
      expect(store.pendingNotices(LEAD)).toEqual([]);
    });
  });

  it("T34 SessionEnd with reason clear records session_reset for the watchers, then ends the session's own watches (R50)", async () => {
    const db = join(dir, 'clear.db');
    withStore(db, (store) => {
      store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' });
      store.watch({ watcherSessionKey: SESSION, targetSessionKey: 'agent:claude-code:other', agentId: 'claude-code' });
      store.record({ sessionKey: 'agent:claude-code:other', agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
      expect(store.pendingNotices(SESSION)).toHaveLength(1);
    });
    const r = await hook(db, 'session-end-clear');
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    withStore(db, (store) => {
      expect(events(store, SESSION).map((e) => [e.kind, e.summary])).toEqual([['session_reset', 'session cleared via claude-code']]);
      expect(store.pendingNotices(LEAD).map((n) => n.targetSessionKey)).toEqual([SESSION]);
      expect(store.pendingNotices(SESSION)).toEqual([]);
    });
  });

  it('T34 SessionEnd for another reason writes nothing: exit 0, silent, no database created', async () => {
    const db = join(dir, 'exit.db');
    const r = await hook(db, 'session-end-exit');
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(db)).toBe(false);
  });

  it("T31 a prompt the runtime submits itself (source system) is not recorded as the person's turn, yet carries the notices", async () => {
    const db = join(dir, 'machine.db');
    withStore(db, (store) => {
      store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'claude-code' });
      store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
      store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    });
    const r = await hook(db, 'user-prompt-submit-system');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toBe(
      `Session "${LEAD}" changed (other actor). Reconcile before acting: session_status sessionKey "${LEAD}" changesSince 0.`,
    );
    withStore(db, (store) => {
      expect(events(store, SESSION)).toEqual([]);
      expect(store.pendingNotices(LEAD)).toEqual([]);
      expect(store.pendingNotices(SESSION)).toEqual([]);
    });
  });
});
