import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editHooksText, readJsonConfig } from '../../src/cli/agent-config.js';
import { isOwnHook } from '../../src/cli/kit-command.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { binaryOrSkip, copilotEnv, findCopilot, makeSandbox, runBinary, type Sandbox } from '../agents/binaries.js';
import { startFakeChatCompletions, type FakeChatCompletions } from '../agents/fake-chat-completions.js';
import { runAsUser as run, useBuiltCli } from './helpers.js';

/**
 * T45-T47, T50, T55 for GitHub Copilot CLI: what `init copilot` writes, that the real binary
 * (`@github/copilot` 1.0.102, offline) reads it from there, that init never trusts a folder for
 * Copilot, and what `doctor` says. A missing binary skips the parts that need it (CI fails).
 */
const copilot = binaryOrSkip(findCopilot(), 'T55 init copilot against the real Copilot CLI');
const cli = useBuiltCli();
const boxes: Sandbox[] = [];
afterAll(() => boxes.forEach((b) => b.remove()));
const sandbox = (): Sandbox & { db: string; env: Record<string, string> } => {
  const box = makeSandbox('init-copilot');
  boxes.push(box);
  return Object.assign(box, { db: join(box.root, 'team.db'), env: { HOME: box.home } });
};
/** The command init writes: this Node and the real path of the CLI (T50). */
const kitCommand = (db: string) => `${process.execPath} ${realpathSync(cli.path())} hook copilot --db ${db}`;
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
const backups = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.bak')) : []);

describe('T55 init copilot: the files and what is in them', () => {
  it('T55 T50 --project writes .github/hooks/session-state-kit.json (PascalCase events, bash, timeoutSec) and the bound MCP entry in .github/mcp.json; a second run changes nothing', async () => {
    const s = sandbox();
    const r = await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    const hooks = json(join(s.project, '.github', 'hooks', 'session-state-kit.json'));
    const handler = { type: 'command', bash: kitCommand(s.db), timeoutSec: 30 };
    expect(hooks).toEqual({ version: 1, hooks: { SessionStart: [handler], UserPromptSubmit: [handler], PreCompact: [handler] } });
    expect(json(join(s.project, '.github', 'mcp.json'))).toEqual({
      mcpServers: { 'session-state-kit-copilot': { command: process.execPath, args: [realpathSync(cli.path()), 'mcp', '--db', s.db, '--caller-session', 'copilot', '--visibility', 'all'] } },
    });
    expect(existsSync(join(s.project, '.mcp.json'))).toBe(false);
    // T55: init never trusts the folder; it says Copilot will not read these files until someone does.
    expect(r.stdout).toContain('only in a folder it trusts');
    expect(existsSync(join(s.home, '.copilot'))).toBe(false);
    const again = await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project);
    expect(again.stdout).toContain('nothing to change: copilot is already set up with session-state-kit here');
  });

  it('T55 --user writes under $COPILOT_HOME (hooks/session-state-kit.json, mcp-config.json), ~/.copilot by default', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--user', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(json(join(s.home, '.copilot', 'hooks', 'session-state-kit.json'))['hooks']['UserPromptSubmit'][0]['bash']).toBe(kitCommand(s.db));
    expect(Object.keys(json(join(s.home, '.copilot', 'mcp-config.json'))['mcpServers'])).toEqual(['session-state-kit-copilot']);
    const elsewhere = join(s.root, 'copilot-home');
    expect((await run(cli.path(), ['init', 'copilot', '--user', '--db', s.db], { ...s.env, COPILOT_HOME: elsewhere }, s.project)).code).toBe(0);
    expect(existsSync(join(elsewhere, 'hooks', 'session-state-kit.json'))).toBe(true);
    expect(existsSync(join(elsewhere, 'mcp-config.json'))).toBe(true);
  });

  it('T45 a person\'s own handlers in the file (a command key, another event, a lookalike) are kept by init and uninstall, byte for byte; each changed file is backed up first', async () => {
    const s = sandbox();
    const dir = join(s.project, '.github', 'hooks');
    mkdirSync(dir, { recursive: true });
    // Names the hook without naming the kit: still reported, never taken for init's.
    const lookalike = `touch ./pwned # hook copilot --db ${s.db}`;
    const text = `${JSON.stringify({ version: 1, hooks: { SessionStart: [{ type: 'command', command: './audit.sh' }], Stop: [{ type: 'command', bash: lookalike }] } }, null, 2)}\n`;
    const path = join(dir, 'session-state-kit.json');
    writeFileSync(path, text);
    const r = await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/has 1 handler\(s\) that mention session-state-kit but are not a command init writes \(Stop\[0\]\); init leaves them untouched/);
    const after = json(path);
    expect(after['hooks']['SessionStart']).toEqual([{ type: 'command', command: './audit.sh' }, { type: 'command', bash: kitCommand(s.db), timeoutSec: 30 }]);
    expect(after['hooks']['Stop']).toEqual([{ type: 'command', bash: lookalike }]);
    expect(backups(dir)).toHaveLength(1);
    expect(readFileSync(join(dir, backups(dir)[0]!), 'utf8')).toBe(text);
    const gone = await run(cli.path(), ['init', 'copilot', '--uninstall', '--db', s.db], s.env, s.project);
    expect(gone.code, gone.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);
    // The MCP file init created keeps no entry of its own.
    expect(json(join(s.project, '.github', 'mcp.json'))).toEqual({});
  });

  it('T45 --dry-run shows the change and writes nothing; a file that is not valid JSON is refused by line and column, nothing written', async () => {
    const s = sandbox();
    const dry = await run(cli.path(), ['init', 'copilot', '--dry-run', '--db', s.db], s.env, s.project);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('"SessionStart"');
    expect(existsSync(join(s.project, '.github'))).toBe(false);
    mkdirSync(join(s.home, '.copilot'), { recursive: true });
    writeFileSync(join(s.home, '.copilot', 'mcp-config.json'), '{\n  "mcpServers": {,\n}\n');
    const bad = await run(cli.path(), ['init', 'copilot', '--user', '--db', s.db], s.env, s.project);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/mcp-config\.json:2:\d+: not valid JSON .*nothing was written/);
    expect(existsSync(join(s.home, '.copilot', 'hooks'))).toBe(false);
  });

  it('T47 doctor never runs a repository\'s Copilot hook: a lookalike and another copy of the kit in .github/hooks are reported, not run', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.github', 'hooks'), { recursive: true });
    mkdirSync(join(s.project, 'evil'));
    writeFileSync(join(s.project, 'evil', 'cli.js'), `require('fs').writeFileSync(${JSON.stringify(join(s.project, 'RAN-EVIL'))}, 'x');\n`);
    const hooks = { version: 1, hooks: { SessionStart: [{ type: 'command', bash: `touch ${join(s.project, 'RAN-LURE')} # hook copilot --db x` }], UserPromptSubmit: [{ type: 'command', bash: `${process.execPath} ${join(s.project, 'evil', 'cli.js')} hook copilot --db ${s.db}` }] } };
    writeFileSync(join(s.project, '.github', 'hooks', 'session-state-kit.json'), JSON.stringify(hooks));
    const r = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}copilot {5}project hook not run +.*SessionStart\[0\] mentions session-state-kit but is not a command init writes; doctor does not run it$/m);
    expect(r.stdout).toMatch(/^FAIL {2}copilot {5}project hooks pinned +1 hook\(s\) run another copy of the kit .*evil\/cli\.js\), which doctor does not run/m);
    expect(existsSync(join(s.project, 'RAN-EVIL'))).toBe(false);
    expect(existsSync(join(s.project, 'RAN-LURE'))).toBe(false);
  });

  it('T45 T55 init copilot --trust is refused: init never records trust for Copilot', async () => {
    const s = sandbox();
    const r = await run(cli.path(), ['init', 'copilot', '--trust', '--db', s.db], s.env, s.project);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--trust is for codex: init never trusts a folder for Copilot');
    expect(existsSync(join(s.project, '.github'))).toBe(false);
  });

  it('T55 where the project has a .mcp.json, the entry goes there (Copilot then ignores .github/mcp.json) and moves out of .github/mcp.json; uninstall leaves .mcp.json as it was', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(Object.keys(json(join(s.project, '.github', 'mcp.json'))['mcpServers'])).toEqual(['session-state-kit-copilot']);
    // Claude Code set up later: its .mcp.json now shadows .github/mcp.json for Copilot.
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    const claudeOnly = readFileSync(join(s.project, '.mcp.json'), 'utf8');
    const doctor = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(doctor.stdout).toMatch(/^FAIL {2}copilot {5}project MCP server +.*mcp\.json: Copilot does not read it while .*\.mcp\.json exists.*run init copilot again to move it$/m);
    const moved = await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project);
    expect(moved.stdout).toContain('is also Claude Code\'s');
    expect(Object.keys(json(join(s.project, '.mcp.json'))['mcpServers'])).toEqual(['session-state-kit', 'session-state-kit-copilot']);
    expect(json(join(s.project, '.github', 'mcp.json'))).toEqual({});
    expect((await run(cli.path(), ['init', 'copilot', '--uninstall', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(join(s.project, '.mcp.json'), 'utf8')).toBe(claudeOnly);
  });
});

describe('T45 T55 property: Copilot\'s flat hooks file, init twice is init once and uninstall gives it back', () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
  const handler = fc.oneof(
    fc.record({ type: fc.constant('command'), bash: fc.stringMatching(/^[~/a-z][a-z0-9/ _.-]{0,20}$/), timeoutSec: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }) }, { requiredKeys: ['type', 'bash'] }),
    fc.record({ type: fc.constant('command'), command: fc.stringMatching(/^[~/a-z][a-z0-9/ _.-]{0,20}$/), cwd: word }),
  );
  const file = fc.record({
    version: fc.constant(1),
    hooks: fc.dictionary(fc.constantFrom('SessionStart', 'UserPromptSubmit', 'PreCompact', 'Stop', 'preToolUse', 'sessionEnd'), fc.array(handler, { minLength: 1, maxLength: 2 }), { minKeys: 1, maxKeys: 4 }),
    extra: fc.option(fc.dictionary(word, fc.string({ maxLength: 8 }), { maxKeys: 2 }), { nil: undefined }),
  }, { requiredKeys: ['version', 'hooks'] });
  const command = "/usr/bin/node '/opt/my tools/session-state-kit/dist/cli.js' hook copilot --db /srv/team.db";

  it('T45 T55 same handlers, same key order; a newer launcher updates its handler in place; another database\'s hook stays beside', () => {
    fc.assert(
      fc.property(file, fc.constantFrom('  ', '\t'), (value, indent) => {
        const text = `${JSON.stringify(value, null, indent)}\n`;
        const own = (c: unknown) => isOwnHook(c, 'copilot', '/srv/team.db');
        const once = editHooksText('h.json', text, 'copilot', command, own)!;
        expect(editHooksText('h.json', once, 'copilot', command, own)).toBe(once);
        const hooks = readJsonConfig('h.json', once)['hooks'] as Record<string, { bash?: string }[]>;
        for (const event of ['SessionStart', 'UserPromptSubmit', 'PreCompact']) expect(hooks[event]!.filter((h) => h.bash === command)).toHaveLength(1);
        const moved = editHooksText('h.json', once, 'copilot', command.replace('/opt/my tools/', '/opt/v2/'), own)!;
        expect(moved.split(' hook copilot ').length).toBe(once.split(' hook copilot ').length);
        const other = command.replace('/srv/team.db', '/srv/other.db');
        const both = editHooksText('h.json', moved, 'copilot', other, (c) => isOwnHook(c, 'copilot', '/srv/other.db'))!;
        expect(editHooksText('h.json', both, 'copilot', undefined, (c) => isOwnHook(c, 'copilot', '/srv/other.db'))).toBe(moved);
        expect(editHooksText('h.json', moved, 'copilot', undefined, own)).toBe(text);
      }),
      { numRuns: 200, seed: 55 },
    );
  });

  it('T55 a file init creates starts with version 1; uninstalling everything keeps an empty hooks object, which Copilot accepts', () => {
    const own = (c: unknown) => isOwnHook(c, 'copilot', '/srv/team.db');
    const created = editHooksText('h.json', undefined, 'copilot', command, own)!;
    expect(Object.keys(readJsonConfig('h.json', created))).toEqual(['version', 'hooks']);
    expect(readJsonConfig('h.json', editHooksText('h.json', created, 'copilot', undefined, own))).toEqual({ version: 1, hooks: {} });
    // An own handler whose bound a person changed gets init's bound back, where it is.
    const changed = created.replace('"timeoutSec": 30', '"timeoutSec": 600');
    expect(changed).not.toBe(created);
    expect(editHooksText('h.json', changed, 'copilot', command, own)).toBe(created);
  });
});

describe.skipIf(copilot === undefined)('T55 the real Copilot CLI reads what init copilot wrote, and only in a trusted folder', () => {
  let api: FakeChatCompletions;
  beforeAll(async () => {
    api = await startFakeChatCompletions(() => ({ text: 'ok' }));
  });
  afterAll(async () => api?.close());
  const copilotRun = (s: Sandbox, args: string[], extra: Record<string, string> = {}) => runBinary(copilot!.command, args, { cwd: s.project, env: copilotEnv(s, api.baseUrl, extra) });
  const sessions = (db: string) => {
    if (!existsSync(db)) return [];
    const store = createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
    try {
      return store.sessionsPage({ limit: 100 }).map((r) => r.sessionKey);
    } finally {
      store.close();
    }
  };

  it('T55 project hooks run only once the folder is trusted: init alone trusts nothing, --trust-folder for one run does, and the session is agent:copilot:<id>', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    const id = '0f1e2d3c-4b5a-4968-8776-655443322110';
    expect((await copilotRun(s, ['-p', 'hello', '--session-id', id])).code).toBe(0);
    expect(sessions(s.db)).toEqual([]);
    // --trust-folder trusts the folder for one new session, and records nothing.
    const trusted = await copilotRun(s, ['-p', 'hello again', '--trust-folder']);
    expect(trusted.code, trusted.stderr.slice(-1500)).toBe(0);
    const next = /--resume=([0-9a-f-]{36})/.exec(trusted.stdout + trusted.stderr)?.[1];
    expect(next).toBeDefined();
    expect(sessions(s.db)).toEqual([`agent:copilot:${next}`]);
    expect(existsSync(join(s.home, '.copilot', 'config.json')) ? readFileSync(join(s.home, '.copilot', 'config.json'), 'utf8') : '').not.toContain(s.project);
  });

  it('T55 Copilot lists the MCP entry from the file init chose: .github/mcp.json, or .mcp.json when the project has one', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    // The person trusts the folder (as Copilot records it when asked to remember it).
    mkdirSync(join(s.home, '.copilot'), { recursive: true });
    writeFileSync(join(s.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [s.project] }));
    const listed = async () => (JSON.parse((await copilotRun(s, ['mcp', 'list', '--json'])).stdout) as { mcpServers: Record<string, { args: string[]; sourcePath?: string }> }).mcpServers;
    let servers = await listed();
    expect(servers['session-state-kit-copilot']).toMatchObject({ args: [realpathSync(cli.path()), 'mcp', '--db', s.db, '--caller-session', 'copilot', '--visibility', 'all'], sourcePath: join(s.project, '.github', 'mcp.json') });
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(await listed()).not.toHaveProperty('session-state-kit-copilot');
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    servers = await listed();
    expect(servers['session-state-kit-copilot']?.sourcePath).toBe(join(s.project, '.mcp.json'));
  });

  it('T55 --user: Copilot runs the hooks from $COPILOT_HOME/hooks in any folder, trusted or not, and lists the entry from mcp-config.json', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--user', '--db', s.db], s.env, s.project)).code).toBe(0);
    const id = '3c4d5e6f-7081-4b9c-8d1e-2f3a4b5c6d7e';
    const r = await copilotRun(s, ['-p', 'hello', '--session-id', id]);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(sessions(s.db)).toEqual([`agent:copilot:${id}`]);
    const listed = JSON.parse((await copilotRun(s, ['mcp', 'list', '--json'])).stdout) as { mcpServers: Record<string, unknown> };
    expect(listed.mcpServers['session-state-kit-copilot']).toMatchObject({ source: 'user', args: [realpathSync(cli.path()), 'mcp', '--db', s.db, '--caller-session', 'copilot', '--visibility', 'all'] });
  });

  it('T19 T55 the server Copilot starts from init\'s entry is bound to the session Copilot names (COPILOT_AGENT_SESSION_ID): session_notices without a watcher drains that session\'s notices', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    mkdirSync(join(s.home, '.copilot'), { recursive: true });
    writeFileSync(join(s.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [s.project] }));
    const id = '2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d';
    const lead = 'agent:claude-code:lead';
    const seed = createSqliteStore({ path: s.db, now: () => Date.now(), logger: silentLogger });
    seed.watch({ watcherSessionKey: `agent:copilot:${id}`, targetSessionKey: lead, agentId: 'claude-code' });
    seed.close();
    const results: string[] = [];
    // The lead changes while the model works (after the prompt's hook took the notices), and the
    // model asks the server for its notices naming no watcher: only a bound server can answer.
    const local = await startFakeChatCompletions((request) => {
      const messages = (request.json?.['messages'] ?? []) as { role?: string; content?: unknown }[];
      const last = messages.at(-1);
      if (last?.role === 'tool') {
        results.push(String(last.content));
        return { text: 'done' };
      }
      const store = createSqliteStore({ path: s.db, now: () => Date.now(), logger: silentLogger });
      store.record({ sessionKey: lead, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude-code' });
      store.close();
      return { toolCall: { name: 'session-state-kit-copilot-session_notices', arguments: {} } };
    });
    try {
      const r = await runBinary(copilot!.command, ['-p', 'any news?', '--session-id', id, '--allow-tool', 'session-state-kit-copilot'], { cwd: s.project, env: copilotEnv(s, local.baseUrl) });
      expect(r.code, r.stderr.slice(-1500)).toBe(0);
    } finally {
      await local.close();
    }
    expect(results).toHaveLength(1);
    expect(results[0]).toContain(`Session "${lead}" changed (other actor)`);
  });

  it('T47 T55 doctor: the folder\'s trust as Copilot records it (a folder above counts), the three hooks pinned and running, the MCP entry pinned', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'copilot', '--db', s.db], s.env, s.project)).code).toBe(0);
    const untrusted = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toMatch(/^FAIL {2}copilot {5}project folder trusted +Copilot does not read .*\.github\/hooks or its MCP file in a folder it does not trust/m);
    mkdirSync(join(s.home, '.copilot'), { recursive: true });
    // As Copilot writes it: comments, and the folder above the project.
    writeFileSync(join(s.home, '.copilot', 'config.json'), `// User settings belong in settings.json.\n{\n  "trustedFolders": [${JSON.stringify(s.root)}]\n}\n`);
    const trusted = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(trusted.code, trusted.stdout).toBe(0);
    expect(trusted.stdout).toMatch(/^ok {4}copilot {5}project hooks installed +.*session-state-kit\.json: 3\/3$/m);
    expect(trusted.stdout).toMatch(/^ok {4}copilot {5}project hook runs +the installed command starts and answers/m);
    expect(trusted.stdout).toMatch(/^ok {4}copilot {5}project MCP server +.*\.github\/mcp\.json: pinned to this copy of the kit$/m);
    // Copilot agrees: with that config it loads the repository's hooks without --trust-folder.
    const id = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
    expect((await copilotRun(s, ['-p', 'hello', '--session-id', id])).code).toBe(0);
    expect(sessions(s.db)).toEqual([`agent:copilot:${id}`]);
  });
});
