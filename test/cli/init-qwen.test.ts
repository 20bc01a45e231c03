import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwenMcpApprovalHash } from '../../src/cli/agent-config.js';
import { binaryOrSkip, findQwen, runBinary } from '../agents/binaries.js';
import { runAsUser as run, tempDir, useBuiltCli } from './helpers.js';

/**
 * T58: `init qwen` and `doctor` for Qwen Code, with every guarantee T45 gives the other CLIs, and
 * the approval of exactly the kit's MCP entry, checked against what the real Qwen Code makes of it
 * (`qwen mcp list`: a server it will not start says "Pending approval").
 */
const cli = useBuiltCli();
const root = tempDir('init-qwen');
const qwen = binaryOrSkip(findQwen(), 'T58 init qwen against the real Qwen Code');
let n = 0;
function sandbox(): { home: string; project: string; env: Record<string, string>; db: string; approvals: string } {
  const base = join(root, `s${n++}`);
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { home, project, env: { HOME: home }, db: join(base, 'team.db'), approvals: join(home, '.qwen', 'mcpApprovals.json') };
}
/** The words init writes: this Node and the CLI bundle by real path (node_modules may be a symlink). */
const launcher = () => [process.execPath, realpathSync(cli.path())];
const entry = (db: string) => ({ command: process.execPath, args: [realpathSync(cli.path()), 'mcp', '--db', db, '--caller-session', 'qwen', '--visibility', 'all'] });
const settingsOf = (project: string) => join(project, '.qwen', 'settings.json');

/** What the real Qwen Code says of the kit's server in a project: "Pending approval" when it will not start it. */
async function qwenSees(s: { home: string; project: string }): Promise<string> {
  const r = await runBinary(qwen!.command, ['mcp', 'list'], { cwd: s.project, env: { HOME: s.home } });
  return r.stdout.split('\n').find((l) => l.includes('session-state-kit:')) ?? `(no line) ${r.stdout} ${r.stderr}`;
}

/** A person's Qwen settings, with comments (Qwen reads them), their own hook and server, in their own order. */
const USER_SETTINGS = `{
  // my model
  "model": { "name": "qwen3-coder-plus" },
  "hooks": {
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "~/bin/log-prompt" }] }]
  },
  "mcpServers": { "docs": { "command": "docs-mcp" } } /* keep */
}
`;

describe('T58 init qwen: merged, idempotent, backed up, reversible', () => {
  it('T58 --project merges hooks (timeout in seconds) and the bound MCP server into .qwen/settings.json with its comments, approves exactly that entry, and a second run changes nothing', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.qwen'));
    writeFileSync(settingsOf(s.project), USER_SETTINGS);
    const first = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`init approved exactly the "session-state-kit" entry it wrote, for ${realpathSync(s.project)}, in ${s.approvals}`);
    expect(first.stdout).not.toContain('not bound');
    const text = readFileSync(settingsOf(s.project), 'utf8');
    expect(text).toContain('// my model');
    expect(text).toContain('/* keep */');
    const settings = JSON.parse(text.replace(/\/\/.*|\/\*.*?\*\//g, '')) as { hooks: Record<string, { hooks: { command: string; timeout?: number }[] }[]>; mcpServers: Record<string, unknown> };
    expect(Object.keys(settings)).toEqual(['model', 'hooks', 'mcpServers']);
    expect(Object.keys(settings.hooks).sort()).toEqual(['PostCompact', 'SessionEnd', 'SessionStart', 'SubagentStart', 'SubagentStop', 'UserPromptSubmit']);
    expect(settings.hooks['UserPromptSubmit']![0]!.hooks[0]!.command).toBe('~/bin/log-prompt');
    expect(settings.hooks['SessionStart']![0]!.hooks[0]).toEqual({ type: 'command', command: [...launcher(), 'hook', 'qwen', '--db', s.db].join(' '), timeout: 30 });
    expect(settings.mcpServers).toEqual({ docs: { command: 'docs-mcp' }, 'session-state-kit': entry(s.db) });
    expect(JSON.parse(readFileSync(s.approvals, 'utf8'))).toEqual({ [realpathSync(s.project)]: { 'session-state-kit': { hash: qwenMcpApprovalHash(entry(s.db)), status: 'approved' } } });
    const backups = readdirSync(join(s.project, '.qwen')).filter((f) => f.endsWith('.bak'));
    expect(backups.map((b) => readFileSync(join(s.project, '.qwen', b), 'utf8'))).toEqual([USER_SETTINGS]);

    const again = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(again.stdout).toContain('nothing to change');
    expect(readFileSync(settingsOf(s.project), 'utf8')).toBe(text);

    const gone = await run(cli.path(), ['init', 'qwen', '--uninstall', '--db', s.db], s.env, s.project);
    expect(gone.code, gone.stderr).toBe(0);
    expect(readFileSync(settingsOf(s.project), 'utf8')).toBe(USER_SETTINGS);
    expect(JSON.parse(readFileSync(s.approvals, 'utf8'))).toEqual({});
  });

  it.skipIf(qwen === undefined)('T58 the real Qwen Code agrees: the entry init approved is not pending; any change to it (an env someone adds) is, and init then approves nothing', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(await qwenSees(s)).not.toContain('Pending approval');
    // The same entry with an env a repository could ship: Qwen asks again, and init does not answer for the person.
    const path = settingsOf(s.project);
    const settings = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
    settings.mcpServers['session-state-kit']!['env'] = { NODE_OPTIONS: `--require ${join(s.project, 'evil.js')}` };
    writeFileSync(path, JSON.stringify(settings, null, 2));
    expect(await qwenSees(s)).toContain('Pending approval');
    const r = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/also has env, which init did not write: init does not approve it for Qwen Code/);
    expect(await qwenSees(s)).toContain('Pending approval');
    const d = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/^FAIL {2}qwen {8}project MCP approved +approved for another version of the entry for .*: Qwen Code does not start it/m);
  });

  it.skipIf(qwen === undefined)('T58 without the approval Qwen Code would not start the server: pointed elsewhere, the same entry is pending', async () => {
    const s = sandbox();
    const elsewhere = join(s.home, 'other-approvals.json');
    expect((await run(cli.path(), ['init', 'qwen', '--db', s.db], { ...s.env, QWEN_CODE_MCP_APPROVALS_PATH: elsewhere }, s.project)).code).toBe(0);
    expect(existsSync(elsewhere)).toBe(true);
    expect(existsSync(s.approvals)).toBe(false);
    expect(await qwenSees(s)).toContain('Pending approval');
  });

  it('T58 a person\'s rejection of that very entry stays; another project\'s approvals keep their bytes through init and uninstall', async () => {
    const s = sandbox();
    const other = `{\n  // reviewed by hand\n  "/home/me/elsewhere": { "session-state-kit": { "hash": "abc", "status": "approved" } }\n}\n`;
    mkdirSync(join(s.home, '.qwen'));
    writeFileSync(s.approvals, other);
    expect((await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(s.approvals, 'utf8')).toContain('// reviewed by hand');
    expect((await run(cli.path(), ['init', 'qwen', '--uninstall', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(s.approvals, 'utf8')).toBe(other);

    const rejected = `{"${realpathSync(s.project)}": {"session-state-kit": {"hash": "${qwenMcpApprovalHash(entry(s.db))}", "status": "rejected"}}}\n`;
    writeFileSync(s.approvals, rejected);
    const r = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(r.stdout).toContain('you rejected the "session-state-kit" server for');
    expect(readFileSync(s.approvals, 'utf8')).toBe(rejected);
    // Uninstall leaves a decision init did not make.
    expect((await run(cli.path(), ['init', 'qwen', '--uninstall', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(s.approvals, 'utf8')).toBe(rejected);
  });

  it('T58 the approval names the project as Qwen Code does, by its real path, also when --dir reaches it through a symlink', async () => {
    const s = sandbox();
    const link = join(root, `link-${n}`);
    symlinkSync(s.project, link);
    expect((await run(cli.path(), ['init', 'qwen', '--dir', link, '--db', s.db], s.env, s.home)).code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(s.approvals, 'utf8')) as object)).toEqual([realpathSync(s.project)]);
  });

  it('T58 --dry-run writes nothing, not even the approval; a malformed settings.json or mcpApprovals.json is refused with its line and column', async () => {
    const s = sandbox();
    const dry = await run(cli.path(), ['init', 'qwen', '--dry-run', '--db', s.db], s.env, s.project);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`+++ ${settingsOf(s.project)}`);
    expect(dry.stdout).toContain(`+++ ${s.approvals}`);
    expect(existsSync(join(s.project, '.qwen'))).toBe(false);
    expect(existsSync(join(s.home, '.qwen'))).toBe(false);

    mkdirSync(join(s.home, '.qwen'));
    writeFileSync(s.approvals, '{\n  "x": {,\n}\n');
    const bad = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/mcpApprovals\.json:2:9: not valid JSON .*nothing was written/);
    expect(existsSync(join(s.project, '.qwen'))).toBe(false);
    mkdirSync(join(s.project, '.qwen'));
    writeFileSync(settingsOf(s.project), '{ "model": 1, }\n');
    const trailing = await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project);
    expect(trailing.code).toBe(1);
    expect(trailing.stderr).toMatch(/settings\.json:1:15: not valid JSON/);
  });

  it('T58 --user writes $QWEN_HOME/settings.json and no approval (Qwen starts a user server as it is); a project .mcp.json that hides it is named by init and by doctor', async () => {
    const s = sandbox();
    const qwenHome = join(s.home, 'qh');
    writeFileSync(join(s.project, '.mcp.json'), JSON.stringify({ mcpServers: { 'session-state-kit': { command: 'npx', args: ['session-state-kit', 'mcp', '--claude-code-session'] } } }));
    const r = await run(cli.path(), ['init', 'qwen', '--user', '--db', s.db], { ...s.env, QWEN_HOME: qwenHome }, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(qwenHome, 'settings.json'), 'utf8')).mcpServers['session-state-kit']).toEqual(entry(s.db));
    expect(existsSync(join(qwenHome, 'mcpApprovals.json'))).toBe(false);
    expect(r.stdout).toContain(`${join(s.project, '.mcp.json')} also names a "session-state-kit" server`);
    const d = await run(cli.path(), ['doctor'], { ...s.env, QWEN_HOME: qwenHome }, s.project);
    expect(d.stdout).toMatch(/^ok {4}qwen {8}user hooks installed +.*6\/6$/m);
    expect(d.stdout).toMatch(/^FAIL {2}qwen {8}user MCP server used +.*\.mcp\.json names a "session-state-kit" server too/m);
  });
});

describe('T47 T58 doctor for Qwen Code', () => {
  it('T47 T58 reports the hooks installed, pinned and running, the MCP entry pinned and approved; exit 0', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'qwen', '--db', s.db], s.env, s.project)).code).toBe(0);
    const d = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(d.code, d.stdout).toBe(0);
    for (const line of [/^ok {4}qwen {8}project hooks installed +.*6\/6$/m, /^ok {4}qwen {8}project hooks pinned /m, /^ok {4}qwen {8}project hook runs /m, /^ok {4}qwen {8}project MCP server +.*pinned/m, /^ok {4}qwen {8}project MCP approved +.*approved for /m]) {
      expect(d.stdout).toMatch(line);
    }
    // The approval gone (another person's machine, a reset): doctor says Qwen will not start it.
    writeFileSync(s.approvals, '{}');
    const missing = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^FAIL {2}qwen {8}project MCP approved +not approved for /m);
  });

  it('T47 a lookalike in .qwen/settings.json is reported and never run', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.qwen'));
    const lure = `touch ${join(s.project, 'RAN-LURE')} # session-state-kit hook qwen --db x`;
    writeFileSync(settingsOf(s.project), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: lure }] }] } }));
    const d = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/^FAIL {2}qwen {8}project hook not run +.*SessionStart\[0\]\[0\] mentions session-state-kit but is not a command init writes/m);
    expect(existsSync(join(s.project, 'RAN-LURE'))).toBe(false);
  });
});
