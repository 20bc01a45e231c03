import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from './run-hook.js';

/**
 * T52-T54: `hook copilot` as GitHub Copilot CLI runs it, one process per event, on one SQLite
 * file, fed the payloads the pinned binary sent (test/hook/copilot-payloads/, checked against the
 * binary by copilot-payloads.test.ts).
 */
const payload = (name: string) => readFileSync(join(import.meta.dirname, 'copilot-payloads', `${name}.json`), 'utf8');
const ID = String(JSON.parse(payload('session-start-new'))['session_id']);
const SESSION = `agent:copilot:${ID}`;
const LEAD = 'agent:claude-code:lead';
const KEY_LINE = `Session-state key of this session: "${SESSION}". Pass it as watcherSessionKey to the session-state tools.`;
const open = (db: string) => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
const kinds = (db: string, key = SESSION) => {
  const store = open(db);
  try {
    return store.changesSince({ sessionKey: key, since: 0, agentId: key.split(':')[1]! }).stateChanges.events.map((e) => e.kind);
  } finally {
    store.close();
  }
};

describe('T52-T54 Copilot command hook as a process', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook-copilot');
  const copilot = (db: string, input: string | Buffer) => runHook(cli.path(), ['copilot', '--db', db], input);

  it('T52 T53 SessionStart registers agent:copilot:<session_id> and tells its key as a top-level additionalContext; a resume records nothing more and tells the key again', async () => {
    const db = join(dir, 'start.db');
    const r = await copilot(db, payload('session-start-new'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    // T53: Copilot reads a top-level additionalContext and ignores hookSpecificOutput.
    expect(JSON.parse(r.stdout)).toEqual({ additionalContext: KEY_LINE });
    expect(kinds(db)).toEqual(['created']);
    // Copilot does not carry the earlier run's start context into the resumed conversation.
    const resumed = await copilot(db, payload('session-start-resume'));
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(resumed.stdout)).toEqual({ additionalContext: KEY_LINE });
    expect(kinds(db)).toEqual(['created']);
  });

  it('T52 the first prompt\'s hook runs beside the start\'s: a person\'s turn recorded first does not keep the start from telling the key, and only the start that registered tells it', async () => {
    const db = join(dir, 'race.db');
    const store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'copilot' });
    store.close();
    expect((await copilot(db, payload('user-prompt-submit'))).stdout).toBe('');
    expect(kinds(db)).toEqual(['human_direct_message']);
    const start = await copilot(db, payload('session-start-new'));
    expect(JSON.parse(start.stdout)).toEqual({ additionalContext: KEY_LINE });
    // The same start delivered again finds its `created` (R8): the key was told.
    expect((await copilot(db, payload('session-start-new'))).stdout).toBe('');
  });

  it('T52 a person\'s prompt in Copilot is one notice for the session watching it; T51 the start hands over no notice, the prompt does, once', async () => {
    const db = join(dir, 'prompt.db');
    let store = open(db);
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: SESSION, agentId: 'copilot' });
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    store.close();
    const start = await copilot(db, payload('session-start-new'));
    expect(JSON.parse(start.stdout)).toEqual({ additionalContext: KEY_LINE });
    const prompt = await copilot(db, payload('user-prompt-submit'));
    expect(JSON.parse(prompt.stdout)).toEqual({ additionalContext: `Session "${LEAD}" changed (other actor). Reconcile before acting: session_status sessionKey "${LEAD}" changesSince 0.` });
    expect((await copilot(db, payload('user-prompt-submit'))).stdout).toBe('');
    store = open(db);
    try {
      expect(store.pendingNotices(LEAD)).toHaveLength(1);
      const events = store.changesSince({ sessionKey: SESSION, since: 0, agentId: 'copilot' }).stateChanges.events;
      expect(events.map((e) => [e.kind, e.actorType, e.summary, e.payload])).toEqual([
        ['created', 'system', 'session started via copilot', undefined],
        ['human_direct_message', 'human', 'human message via copilot', { channel: 'copilot' }],
        // Copilot names no prompt id: the prompt delivered again is another turn.
        ['human_direct_message', 'human', 'human message via copilot', { channel: 'copilot' }],
      ]);
    } finally {
      store.close();
    }
  });

  it('T52 a sub-agent\'s prompt is the parent model\'s instruction: no person\'s turn, nothing written, no notices taken', async () => {
    const db = join(dir, 'sub.db');
    const r = await copilot(db, payload('user-prompt-submit-subagent'));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/UserPromptSubmit of sub-agent "[0-9a-f-]+": the parent model's instruction, not a person's turn; ignored/);
    expect(existsSync(db)).toBe(false);
  });

  it('T52 T53 PreCompact records the compaction as it starts and prints nothing, so pending notices wait for the next prompt', async () => {
    const db = join(dir, 'compact.db');
    const key = `agent:copilot:${String(JSON.parse(payload('pre-compact-auto'))['session_id'])}`;
    let store = open(db);
    store.watch({ watcherSessionKey: key, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    store.close();
    const r = await copilot(db, payload('pre-compact-auto'));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    store = open(db);
    try {
      expect(store.changesSince({ sessionKey: key, since: 0, agentId: 'copilot' }).stateChanges.events.map((e) => [e.kind, e.summary])).toEqual([['compacted', 'context compacted (auto) via copilot']]);
      expect(store.pendingNotices(key)).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('T52 SessionEnd records nothing and keeps the session\'s watches (Copilot reports /clear as an exit; the session stays resumable)', async () => {
    const db = join(dir, 'end.db');
    await copilot(db, payload('session-start-new'));
    const store = open(db);
    store.watch({ watcherSessionKey: SESSION, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.close();
    for (const reason of ['complete', 'user_exit']) {
      const r = await copilot(db, payload('session-end-complete').replace('"complete"', JSON.stringify(reason)));
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(kinds(db)).toEqual(['created']);
    const check = open(db);
    try {
      check.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
      expect(check.pendingNotices(SESSION)).toHaveLength(1);
    } finally {
      check.close();
    }
  });

  it.each([
    ['Stop', payload('stop'), /ignored hook event "Stop"/],
    ['SubagentStart (1.0.102 names no event)', payload('subagent-start'), /ignored hook event undefined/],
    ['SubagentStop', payload('subagent-stop'), /ignored hook event "SubagentStop"/],
    ['not JSON', 'not json', /input is not JSON/],
    ['an unknown SessionStart source', payload('session-start-new').replace('"new"', '"teleport"'), /source "teleport"/],
    ['a session id that makes no key', payload('user-prompt-submit').replace(ID, 'bell\\u0007'), /session_id "bell\\u0007" does not make a session key \(R1\): ignored, nothing written/],
    ['non-UTF-8 bytes', Buffer.concat([Buffer.from(payload('user-prompt-submit').slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from(payload('user-prompt-submit').slice(40))]), /not valid UTF-8/],
  ])('T53 %s: no opinion (exit 0, empty stdout), one line on stderr, no database created', async (_name, input, reason) => {
    const db = join(dir, `never-${Math.random().toString(36).slice(2)}.db`);
    const r = await copilot(db, input);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });
});

describe('T54 Copilot runs a project\'s Claude Code hooks too', () => {
  const cli = useBuiltCli();
  const dir = tempDir('hook-copilot-claude');
  const claude = (db: string, input: string, env: Record<string, string>) => runHook(cli.path(), ['claude-code', '--db', db], input, { env });

  it.each(['session-start-new', 'user-prompt-submit', 'session-end-complete'])('T54 hook claude-code given Copilot\'s %s (COPILOT_CLI=1): nothing written, nothing handed over, one line on stderr', async (name) => {
    const db = join(dir, `copilot-${name}.db`);
    const store = open(db);
    // A notice waits for the key the Claude Code hook would give Copilot's session.
    store.watch({ watcherSessionKey: `agent:claude-code:${ID}`, targetSessionKey: LEAD, agentId: 'claude-code' });
    store.record({ sessionKey: LEAD, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
    const before = store.stateVersion(`agent:claude-code:${ID}`, 'claude-code');
    store.close();
    const r = await claude(db, payload(name), { COPILOT_CLI: '1' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/run by GitHub Copilot CLI, whose sessions take part through "hook copilot" \(init copilot\): ignored, nothing written/);
    const check = open(db);
    try {
      expect(check.stateVersion(`agent:claude-code:${ID}`, 'claude-code')).toBe(before);
      expect(check.pendingNotices(`agent:claude-code:${ID}`)).toHaveLength(1);
    } finally {
      check.close();
    }
  });

  it('T54 a Claude Code started from a Copilot shell inherits COPILOT_CLI=1, and its own payloads (its transcript named) are still its', async () => {
    const db = join(dir, 'nested.db');
    const own = JSON.stringify({ session_id: 'nested', transcript_path: '/home/dev/.claude/projects/-w/nested.jsonl', cwd: '/w', hook_event_name: 'SessionStart', source: 'startup' });
    const r = await claude(db, own, { COPILOT_CLI: '1' });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('"agent:claude-code:nested"');
    // Without Copilot's mark, a payload is Claude Code's whatever it holds.
    const plain = await claude(join(dir, 'plain.db'), payload('session-start-new'), {});
    expect(JSON.parse(plain.stdout).hookSpecificOutput.additionalContext).toContain(`"agent:claude-code:${ID}"`);
  });
});
