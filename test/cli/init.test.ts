import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { describe, expect, it } from 'vitest';
import { codexHookHash, codexTrustFor, readJsonConfig } from '../../src/cli/agent-config.js';
import { codexBinary } from '../hook/codex-schemas.js';
import { codexHooksList } from './codex-hooks-list.js';
import { runAsUser, tempDir, useBuiltCli } from './helpers.js';

const run = runAsUser;

/** A user's Claude Code settings with their own hooks and unrelated keys, in their own key order. */
const USER_SETTINGS = `{
    "model": "opus",
    "permissions": { "allow": ["Bash(npm test)"] },
    "hooks": {
        "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "~/bin/log-prompt" }] }],
        "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/guard" }] }]
    },
    "env": { "FOO": "1" }
}
`;
const USER_TOML = `# Codex settings, by hand
model = "gpt-5.5-codex"   # the default model

[mcp_servers.docs]
command = "docs-mcp"   # keep this server
args = ["--port", "0"]

[projects."/home/me/repo"]
trust_level = "trusted"
`;

describe('T45 init: merged, idempotent, backed up, reversible', () => {
  const cli = useBuiltCli();
  const dir = tempDir('init');
  const sandbox = (name: string) => {
    const root = join(dir, name);
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    return { root, home, project, env: { HOME: home } };
  };

  it('T45 init claude-code --project merges into the user\'s settings.json and .mcp.json, keeps their entries, order and indentation, and a second run changes nothing', async () => {
    const s = sandbox('claude');
    mkdirSync(join(s.project, '.claude'));
    writeFileSync(join(s.project, '.claude', 'settings.json'), USER_SETTINGS);
    const first = await run(cli.path(), ['init', 'claude-code', '--db', join(s.root, 'team.db')], s.env, s.project);
    expect(first.code, first.stderr).toBe(0);
    // The default database's directory is made, so the first hook can create the file.
    const fresh = sandbox('claude-default-db');
    expect((await run(cli.path(), ['init', 'claude-code'], fresh.env, fresh.project)).code).toBe(0);
    expect(existsSync(join(fresh.project, '.session-state-kit'))).toBe(true);
    const settings = JSON.parse(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8'));
    expect(Object.keys(settings)).toEqual(['model', 'permissions', 'hooks', 'env']);
    expect(settings.hooks.UserPromptSubmit[0]).toEqual({ hooks: [{ type: 'command', command: '~/bin/log-prompt' }] });
    expect(settings.hooks.UserPromptSubmit[1].hooks[0].command).toMatch(/ hook claude-code --db .*team\.db$/);
    expect(settings.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/guard' }] }]);
    for (const event of ['SessionStart', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd']) expect(settings.hooks[event]).toHaveLength(1);
    expect(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8')).toMatch(/^\{\n {4}"model"/);
    const mcp = JSON.parse(readFileSync(join(s.project, '.mcp.json'), 'utf8'));
    expect(mcp.mcpServers['session-state-kit'].args).toEqual([expect.stringMatching(/cli\.mjs$/), 'mcp', '--db', join(s.root, 'team.db'), '--claude-code-session', '--visibility', 'all']);
    // The backup holds the file as it was.
    const backups = readdirSync(join(s.project, '.claude')).filter((f) => f.endsWith('.bak'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(s.project, '.claude', backups[0]!), 'utf8')).toBe(USER_SETTINGS);

    const before = readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8');
    const second = await run(cli.path(), ['init', 'claude-code', '--db', join(s.root, 'team.db')], s.env, s.project);
    expect(second.stdout).toContain('nothing to change');
    expect(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8')).toBe(before);
    expect(readdirSync(join(s.project, '.claude')).filter((f) => f.endsWith('.bak'))).toHaveLength(1);

    // Uninstall removes init's entries for the database it is given (the default here), no other.
    const elsewhere = await run(cli.path(), ['init', 'claude-code', '--uninstall'], s.env, s.project);
    expect(elsewhere.stdout).toContain('nothing of init\'s for --db');
    expect(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8')).toBe(before);
    const gone = await run(cli.path(), ['init', 'claude-code', '--uninstall', '--db', join(s.root, 'team.db')], s.env, s.project);
    expect(gone.code, gone.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8'))).toEqual(JSON.parse(USER_SETTINGS));
  });

  it('T45 --dry-run prints the diff and writes nothing', async () => {
    const s = sandbox('dry');
    const r = await run(cli.path(), ['init', 'codex', '--user', '--dry-run', '--db', join(s.root, 'team.db')], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`+++ ${join(s.home, '.codex', 'hooks.json')}`);
    expect(r.stdout).toMatch(/^\+ \[mcp_servers\.session-state-kit\]$/m);
    expect(r.stdout).toContain('Codex runs no hook it does not trust');
    expect(existsSync(join(s.home, '.codex'))).toBe(false);
  });

  it.each([
    ['settings.json', '.claude/settings.json', '{\n  "model": "opus",\n  "hooks": {\n}}x\n', /settings\.json:4:3: not valid JSON/, ['claude-code']],
    ['config.toml', 'home/.codex/config.toml', 'model = "o3"\n[mcp_servers\ncommand = 1\n', /config\.toml:3:1: not valid TOML \(Table header must be single-line\)/, ['codex', '--trust']],
  ])('T45 a malformed %s is refused with its line and column, and nothing is written', async (_name, file, text, message, args) => {
    const s = sandbox(`bad-${_name}`);
    const path = file.startsWith('home/') ? join(s.root, file) : join(s.project, file);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    const listing = () => [readdirSync(join(path, '..')), existsSync(join(s.project, '.mcp.json')), existsSync(join(s.home, '.codex', 'hooks.json'))];
    const before = listing();
    const r = await run(cli.path(), ['init', ...args, ...(args[0] === 'codex' ? ['--user'] : [])], s.env, s.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('nothing was written');
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(listing()).toEqual(before);
  });

  it('T49 --allow-read-tools names exactly the read-only tools: Claude Code\'s allow rules beside the user\'s, Codex\'s per-tool approval; uninstall takes them back', async () => {
    const s = sandbox('read-tools');
    mkdirSync(join(s.project, '.claude'));
    writeFileSync(join(s.project, '.claude', 'settings.json'), USER_SETTINGS);
    const db = join(s.root, 'team.db');
    const claude = await run(cli.path(), ['init', 'claude-code', '--allow-read-tools', '--db', db], s.env, s.project);
    expect(claude.code, claude.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8'));
    expect(settings.permissions).toEqual({ allow: ['Bash(npm test)', 'mcp__session-state-kit__session_status', 'mcp__session-state-kit__sessions_list'] });
    // Twice is once; uninstall gives the user's file back, their own rule included.
    const again = await run(cli.path(), ['init', 'claude-code', '--allow-read-tools', '--db', db], s.env, s.project);
    expect(again.stdout).toContain('nothing to change');
    expect((await run(cli.path(), ['init', 'claude-code', '--uninstall', '--db', db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8')).toBe(USER_SETTINGS);

    mkdirSync(join(s.home, '.codex'));
    writeFileSync(join(s.home, '.codex', 'config.toml'), USER_TOML);
    const codex = await run(cli.path(), ['init', 'codex', '--user', '--allow-read-tools', '--db', db], s.env, s.project);
    expect(codex.code, codex.stderr).toBe(0);
    const toml = parseToml(readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8')) as { mcp_servers: Record<string, { tools?: Record<string, unknown> }> };
    expect(toml.mcp_servers['session-state-kit']!.tools).toEqual({ session_status: { approval_mode: 'approve' }, sessions_list: { approval_mode: 'approve' } });
    expect(toml.mcp_servers['docs']!.tools).toBeUndefined();
    expect((await run(cli.path(), ['init', 'codex', '--user', '--uninstall', '--db', db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8')).toBe(USER_TOML);
  });

  it('T60 init claude-code binds the server to the calling session with the team\'s visibility, all unless told; --visibility narrows it', async () => {
    const s = sandbox('visibility');
    const db = join(s.root, 'team.db');
    const args = () => JSON.parse(readFileSync(join(s.project, '.mcp.json'), 'utf8')).mcpServers['session-state-kit'].args.slice(1);
    expect((await run(cli.path(), ['init', 'claude-code', '--db', db], s.env, s.project)).code).toBe(0);
    expect(args()).toEqual(['mcp', '--db', db, '--claude-code-session', '--visibility', 'all']);
    // A second init with another scope replaces the entry's scope, no second entry.
    expect((await run(cli.path(), ['init', 'claude-code', '--visibility', 'tree', '--db', db], s.env, s.project)).code).toBe(0);
    expect(args()).toEqual(['mcp', '--db', db, '--claude-code-session', '--visibility', 'tree']);
  });

  it('T45 bad command lines are usage errors (exit 2) that name the problem', async () => {
    const s = sandbox('usage');
    for (const [args, text] of [
      [['init'], 'claude-code, codex, gemini, qwen, copilot or opencode'],
      [['init', 'aider'], '"aider"'],
      [['init', 'codex', '--user', '--project'], 'exclude each other'],
      [['init', 'claude-code', '--trust'], '--trust is for codex'],
      [['init', 'codex', '--db', ':memory:'], 'a file both CLIs can share'],
      [['init', 'gemini', '--allow-read-tools'], '--allow-read-tools is for claude-code and codex'],
      [['init', 'qwen', '--allow-read-tools'], '--allowed-tools <tool>'],
      [['init', 'copilot', '--allow-read-tools'], '--allow-tool <tool>'],
      [['init', 'codex', '--allow-read-tools', '--uninstall'], 'exclude each other'],
      [['init', 'codex', '--visibility', 'all'], '--visibility is for claude-code, qwen and copilot'],
      [['init', 'gemini', '--visibility', 'all'], '--visibility is for claude-code, qwen and copilot'],
      [['init', 'claude-code', '--visibility', 'everyone'], '--visibility must be one of self, tree, agent, all, got "everyone"'],
    ] as const) {
      const r = await run(cli.path(), args, s.env, s.project);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });
});

// --- Trust, checked against Codex's own answer (T46) ---

const codex = codexBinary();
if (typeof codex === 'string' && process.env['CI'] === 'true') throw new Error(`T46 needs the Codex binary: ${codex}`);

describe.skipIf(typeof codex === 'string')('T46 init codex --trust, against codex app-server 0.171.0', () => {
  const cli = useBuiltCli();
  const dir = tempDir('init-trust');

  it('T46 trusts exactly the handlers init wrote, with the hash Codex computes; a user\'s own handler stays untrusted; a changed handler asks for renewal', async () => {
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    mkdirSync(join(home, '.codex'), { recursive: true });
    mkdirSync(project, { recursive: true });
    // The user already has a hook of their own, untrusted, and a commented config.
    writeFileSync(join(home, '.codex', 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } }, null, 2));
    writeFileSync(join(home, '.codex', 'config.toml'), USER_TOML);
    const plain = await run(cli.path(), ['init', 'codex', '--user', '--db', join(dir, 'team.db')], { HOME: home }, project);
    expect(plain.stdout).toContain('Codex runs no hook it does not trust');
    const untrusted = await codexHooksList((codex as { path: string }).path, home, project);
    expect(untrusted.filter((h) => h.command.includes(' hook codex ')).map((h) => h.trustStatus)).toEqual(['untrusted', 'untrusted', 'untrusted', 'untrusted', 'untrusted']);

    const trusted = await run(cli.path(), ['init', 'codex', '--user', '--trust', '--db', join(dir, 'team.db')], { HOME: home }, project);
    expect(trusted.code, trusted.stderr).toBe(0);
    const listing = await codexHooksList((codex as { path: string }).path, home, project);
    const ours = listing.filter((h) => h.command.includes(' hook codex '));
    expect(ours).toHaveLength(5);
    for (const h of ours) expect(h.trustStatus, h.key).toBe('trusted');
    expect(listing.find((h) => h.command === 'echo mine')?.trustStatus).toBe('untrusted');
    // The hash init computes is the one Codex reports, handler by handler.
    const settings = readJsonConfig('h', readFileSync(join(home, '.codex', 'hooks.json'), 'utf8'));
    expect(new Map(codexTrustFor(join(home, '.codex', 'hooks.json'), settings, (c) => c.includes(' hook codex ')).map((t) => [t.key, t.hash]))).toEqual(new Map(ours.map((h) => [h.key, h.currentHash])));
    expect(codexHookHash('Stop', { command: 'echo mine' })).toBe(codexHookHash('Stop', { command: 'echo mine', timeout: 600, async: false }));
    // The user's comments survived.
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toContain('model = "gpt-5.5-codex"   # the default model');
    const ok = await run(cli.path(), ['doctor'], { HOME: home }, project);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok {4}codex {7}user hooks trusted +5\/5 trusted$/m);

    // Another database is another set of handlers: added beside, untrusted, and the first set keeps its trust.
    const second = await run(cli.path(), ['init', 'codex', '--user', '--db', join(dir, 'other.db')], { HOME: home }, project);
    expect(second.stdout).toContain('Codex runs no hook it does not trust, and says nothing when it skips one: trust the 5 handler(s)');
    const both = await codexHooksList((codex as { path: string }).path, home, project);
    expect(both.filter((h) => h.command.includes('team.db')).map((h) => h.trustStatus)).toEqual(Array(5).fill('trusted'));
    expect(both.filter((h) => h.command.includes('other.db')).map((h) => h.trustStatus)).toEqual(Array(5).fill('untrusted'));
    expect((await run(cli.path(), ['init', 'codex', '--user', '--uninstall', '--db', join(dir, 'other.db')], { HOME: home }, project)).code).toBe(0);

    // A newer copy of the kit (another path) rewrites its handlers' command: their trust no longer holds, and init says so.
    const copy = join(cli.dir(), '..', `moved-${process.pid}`);
    cpSync(cli.dir(), copy, { recursive: true });
    const moved = await run(join(copy, 'cli.mjs'), ['init', 'codex', '--user', '--db', join(dir, 'team.db')], { HOME: home }, project);
    rmSync(copy, { recursive: true, force: true });
    expect(moved.stdout).toContain('Codex trust is stale for 5 handler(s)');
    const after = await codexHooksList((codex as { path: string }).path, home, project);
    expect(after.filter((h) => h.command.includes(' hook codex ')).map((h) => h.trustStatus)).toEqual(['modified', 'modified', 'modified', 'modified', 'modified']);
    const bad = await run(cli.path(), ['doctor'], { HOME: home }, project);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('5 changed since trusted (renew: init codex --trust)');
  });
});

describe('T47 doctor', () => {
  const cli = useBuiltCli();
  const dir = tempDir('doctor');

  it('T47 says when nothing is installed, reports installed hooks that run, and names a hook whose command no longer starts', async () => {
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    const none = await run(cli.path(), ['doctor'], { HOME: home }, project);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('no session-state-kit hooks installed');

    await run(cli.path(), ['init', 'claude-code', '--db', join(dir, 'team.db')], { HOME: home }, project);
    const ok = await run(cli.path(), ['doctor'], { HOME: home }, project);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok {4}claude-code project hooks installed .*6\/6$/m);
    expect(ok.stdout).toMatch(/^ok {4}claude-code project hook runs/m);
    expect(existsSync(join(dir, 'team.db'))).toBe(false);

    // The package moved: the command the hooks run is gone.
    const path = join(project, '.claude', 'settings.json');
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(cli.path(), join(dir, 'gone', 'cli.mjs')));
    const broken = await run(cli.path(), ['doctor'], { HOME: home }, project);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^FAIL {2}claude-code project hooks pinned +6 hook\(s\) run .*gone\/cli\.mjs, which no longer exists/m);
  });
});
