import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { describe, expect, it } from 'vitest';
import { codexHookHash, codexRecordedTrust, INIT_HOOK_EVENTS, opencodePluginText, qwenApproval, qwenMcpApprovalHash, type AgentCli } from '../../src/cli/agent-config.js';
import { INIT_USAGE } from '../../src/cli/init.js';
import { CliError, EXIT, UsageError } from '../../src/cli/io.js';
import { filesUnder, hookLine, init, launcher, MAIN, readJson, useInitPlace } from './init-fixture.js';

/**
 * T44-T50, T55, T58, T63: `init` in process, each CLI from an empty project to set up, again, and
 * back, with the exact entries it writes and the lines it prints; every refusal by its message,
 * with nothing written. The process-level tests (init.test.ts and its siblings) run the built
 * CLI; these hold the same decisions where a mutant can reach them.
 */
const place = useInitPlace();
const db = () => join(place.project, '.session-state-kit', 'state.db');
const gitignoreNote = () => `the state database is in ${join(place.project, '.session-state-kit')}: add .session-state-kit/ to .gitignore (or run init again with --gitignore), so no one commits the team's session state.`;
const grouped = (cli: AgentCli, timeout: number, database = db()) =>
  Object.fromEntries(INIT_HOOK_EVENTS[cli].map((e) => [e, [{ hooks: [{ type: 'command', command: hookLine(cli, database), timeout }] }]]));
const server = (database: string, ...binding: string[]) => ({ command: process.execPath, args: [...launcher().slice(1), 'mcp', '--db', database, ...binding] });

/** What a run of init threw (undefined when it ran through). */
async function failure(...argv: string[]): Promise<CliError | undefined> {
  return init(...argv).then(
    () => undefined,
    (e: unknown) => e as CliError,
  );
}

async function refused(argv: string[]): Promise<UsageError> {
  const error = await failure(...argv);
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(EXIT.usage);
  return error as UsageError;
}

describe('init refuses a bad command line by name, and writes nothing', () => {
  const cases: [string[], string][] = [
    [[], 'init needs the CLI to set up: claude-code, codex, gemini, qwen, copilot or opencode'],
    [['vim'], 'init needs the CLI to set up: claude-code, codex, gemini, qwen, copilot or opencode (got "vim")'],
    [['codex', 'extra', 'words'], 'unexpected arguments: extra words'],
    [['codex', '--project', '--user'], '--project and --user exclude each other'],
    [['copilot', '--trust'], '--trust is for codex: init never trusts a folder for Copilot (T55)'],
    [['opencode', '--trust'], '--trust is for codex (OpenCode has no trust step: it loads the plugins in its folders as they are, T63)'],
    [['claude-code', '--trust'], '--trust is for codex (Claude Code runs the hooks in its settings as they are)'],
    [['gemini', '--trust'], '--trust is for codex (Claude Code runs the hooks in its settings as they are)'],
    [['gemini', '--allow-read-tools'], '--allow-read-tools is for claude-code and codex (Gemini CLI trusts or confirms a whole MCP server, not one tool: see docs/agents.md)'],
    [['qwen', '--allow-read-tools'], '--allow-read-tools is for claude-code and codex (Qwen Code allows a tool per run: qwen -p ... --allowed-tools <tool>; see docs/agents.md)'],
    [['copilot', '--allow-read-tools'], '--allow-read-tools is for claude-code and codex (Copilot CLI allows a tool per run: copilot -p ... --allow-tool <tool>; see docs/agents.md)'],
    [['opencode', '--allow-read-tools'], '--allow-read-tools is for claude-code and codex (OpenCode runs MCP tools without asking unless its "permission" config says otherwise; see docs/agents.md)'],
    [['claude-code', '--allow-read-tools', '--uninstall'], '--allow-read-tools and --uninstall exclude each other (uninstall removes the approvals init wrote)'],
    [['codex', '--visibility', 'all'], '--visibility is for claude-code, qwen and copilot (the codex server is not told which session calls it, so it is not bound to one)'],
    [['gemini', '--visibility', 'all'], '--visibility is for claude-code, qwen and copilot (the gemini server is not told which session calls it, so it is not bound to one)'],
    [['opencode', '--visibility', 'all'], '--visibility is for claude-code, qwen and copilot (the opencode server is not told which session calls it, so it is not bound to one)'],
    [['claude-code', '--visibility', 'everyone'], '--visibility must be one of self, tree, agent, all, got "everyone"'],
    [['codex', '--trust', '--uninstall'], '--trust and --uninstall exclude each other (uninstall removes the trust init recorded)'],
    [['codex', '--db', ''], '--db needs a file both CLIs can share, got ""'],
    [['codex', '--db', '  '], '--db needs a file both CLIs can share, got "  "'],
    [['codex', '--db', ':memory:'], '--db needs a file both CLIs can share, got ":memory:"'],
  ];
  /** What each refusal tells the person to do next. */
  const hintsOf = (message: string): string[] =>
    /^(init needs|unexpected arguments|--project and --user)/.test(message)
      ? ['see: session-state-kit init --help']
      : message.startsWith('--trust is for codex: init never trusts')
        ? ['Copilot asks on its first interactive run in the folder; doctor says whether it trusts it']
        : [];
  it.each(cases)('T45 init %j: %s', async (argv, message) => {
    const error = await refused([...argv, '--dir', place.project]);
    expect(error.message).toBe(message);
    expect(error.hints).toEqual(hintsOf(message));
    expect(filesUnder(place.root)).toEqual([]);
  });

  it('T45 a --dir that does not exist, and a --db that is a folder or not SQLite, are refused before anything is written', async () => {
    const missing = join(place.root, 'nowhere');
    const gone = await refused(['claude-code', '--dir', missing]);
    expect(gone.message).toBe(`--dir ${missing} does not exist`);
    expect(gone.hints).toEqual([]);
    const folder = join(place.root, 'folder.db');
    mkdirSync(folder);
    const e1 = await refused(['claude-code', '--dir', place.project, '--db', folder]);
    expect(e1.message).toBe(`--db ${folder} can never be opened by a hook: ${folder} is a folder, not a database file; nothing was written`);
    expect(e1.hints).toEqual(['pass --db with a file path in a folder you can write']);
    const text = join(place.root, 'notes.txt');
    writeFileSync(text, 'my notes, not a database\n');
    expect((await refused(['claude-code', '--dir', place.project, '--db', text])).message).toMatch(/^--db .*notes\.txt can never be opened by a hook: .*notes\.txt is not a SQLite database/);
    expect(filesUnder(place.project)).toEqual([]);
    // Uninstall never opens the database, so a path no hook could open is no reason to refuse it.
    expect((await init('claude-code', '--dir', place.project, '--db', folder, '--uninstall')).out).toEqual(['nothing to change: claude-code is already without session-state-kit here']);
  });

  it('T45 --help prints the usage and writes nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await init('codex', flag);
      expect(run).toMatchObject({ code: EXIT.ok, out: [INIT_USAGE] });
    }
    expect(filesUnder(place.root)).toEqual([]);
  });
});

describe('init sets each CLI up in a project, finds it set up, and takes it back', () => {
  it('T45 T49 claude-code: a hook per event, the MCP server bound to the session, and the gitignore note', async () => {
    const settings = join(place.project, '.claude', 'settings.json');
    const mcp = join(place.project, '.mcp.json');
    const first = await init('claude-code', '--dir', place.project);
    expect(first.code).toBe(EXIT.ok);
    expect(first.out).toEqual([`wrote ${settings}`, `wrote ${mcp}`, `state database: ${db()}`, `note: ${gitignoreNote()}`]);
    expect(readJson(settings)).toEqual({ hooks: grouped('claude-code', 30) });
    expect(readJson(mcp)).toEqual({ mcpServers: { 'session-state-kit': server(db(), '--claude-code-session', '--visibility', 'all') } });
    // The hooks open the database on the first event: its folder is there, the file is not.
    expect(existsSync(join(place.project, '.session-state-kit'))).toBe(true);
    expect(existsSync(db())).toBe(false);
    // A file init creates ends with a newline.
    expect(readFileSync(settings, 'utf8').endsWith('}\n')).toBe(true);

    const again = await init('claude-code', '--dir', place.project);
    expect(again.out).toEqual(['nothing to change: claude-code is already set up with session-state-kit here', `state database: ${db()}`, `note: ${gitignoreNote()}`]);

    const dry = await init('claude-code', '--dir', place.project, '--dry-run');
    expect(dry.out).toEqual(['nothing to change: init has already been run with these options', `note: ${gitignoreNote()}`]);

    const back = await init('claude-code', '--dir', place.project, '--uninstall');
    expect(back.out).toHaveLength(2);
    expect(back.out[0]).toMatch(new RegExp(`^updated ${settings.replace(/[.]/g, '\\.')} \\(backup: ${settings.replace(/[.]/g, '\\.')}\\.[0-9T-]+Z\\.bak\\)$`));
    expect(back.out[1]).toMatch(/^updated .*\.mcp\.json \(backup: .*\.mcp\.json\.[0-9T-]+Z\.bak\)$/);
    expect(readJson(settings)).toEqual({});
    expect(readJson(mcp)).toEqual({});
    expect((await init('claude-code', '--dir', place.project, '--uninstall')).out).toEqual(['nothing to change: claude-code is already without session-state-kit here']);
  });

  it('T49 claude-code --allow-read-tools approves exactly the read-only tools, and uninstall takes them back', async () => {
    const settings = join(place.project, '.claude', 'settings.json');
    mkdirSync(join(place.project, '.claude'));
    writeFileSync(settings, '{\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n');
    await init('claude-code', '--dir', place.project, '--allow-read-tools');
    expect(readJson(settings)['permissions']).toEqual({ allow: ['Bash(npm test)', 'mcp__session-state-kit__session_status', 'mcp__session-state-kit__sessions_list'] });
    await init('claude-code', '--dir', place.project, '--uninstall');
    expect(readJson(settings)).toEqual({ permissions: { allow: ['Bash(npm test)'] } });
  });

  it('T59 claude-code --visibility binds the server to that scope', async () => {
    await init('claude-code', '--dir', place.project, '--visibility', 'tree');
    expect(readJson(join(place.project, '.mcp.json'))).toEqual({ mcpServers: { 'session-state-kit': server(db(), '--claude-code-session', '--visibility', 'tree') } });
  });

  it('T45 T46 codex: hooks.json, the server in the project config.toml, and the trust it needs said, not given', async () => {
    const hooks = join(place.project, '.codex', 'hooks.json');
    const config = join(place.project, '.codex', 'config.toml');
    const run = await init('codex', '--dir', place.project);
    expect(run.out.filter((l) => !l.startsWith('note: '))).toEqual([`wrote ${hooks}`, `wrote ${config}`, `state database: ${db()}`]);
    expect(run.notes).toEqual([
      'Codex runs no hook it does not trust, and says nothing when it skips one: trust the 5 handler(s) init wrote with "init codex --trust", or review them in Codex with /hooks.',
      `Codex reads ${join(place.project, '.codex')} only in a project it trusts (it asks on the first run there, or run "codex --trust" there once); init does not trust the project for you, and doctor says whether it is.`,
      gitignoreNote(),
      'the MCP server init registers for Codex is not bound to a session (the CLI does not tell it who calls): through it a model can read and drain any session\'s notices, so use it only where every session on this database is yours (T44).',
    ]);
    expect(readJson(hooks)).toEqual({ hooks: grouped('codex', 30) });
    expect(parseToml(readFileSync(config, 'utf8'))).toEqual({ mcp_servers: { 'session-state-kit': server(db()) } });
    expect(existsSync(join(place.home, '.codex', 'config.toml'))).toBe(false);

    // --trust records exactly the handlers it wrote, in the user's config, and the note goes.
    const trusted = await init('codex', '--dir', place.project, '--trust');
    const userConfig = join(place.home, '.codex', 'config.toml');
    expect(trusted.out[0]).toBe(`wrote ${userConfig}`);
    expect(trusted.notes.some((n) => n.startsWith('Codex runs no hook'))).toBe(false);
    const recorded = codexRecordedTrust(parseToml(readFileSync(userConfig, 'utf8')) as Record<string, unknown>);
    const expected = INIT_HOOK_EVENTS.codex.map((e) => [`${hooks}:${e.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '_') + c.toLowerCase())}:0:0`, codexHookHash(e, { command: hookLine('codex', db()), timeout: 30 })]);
    expect([...recorded]).toEqual(expected);

    // Trust recorded for another form of a handler (one an older init wrote): stale, and init says so.
    writeFileSync(userConfig, readFileSync(userConfig, 'utf8').replace(/trusted_hash = "sha256:[0-9a-f]+"/, 'trusted_hash = "sha256:0000"'));
    const stale = await init('codex', '--dir', place.project);
    expect(stale.notes[0]).toBe('Codex trust is stale for 1 handler(s) init wrote (the handler changed since it was trusted): renew it with --trust, or review them in Codex with /hooks.');
    expect(stale.notes.some((n) => n.startsWith('Codex runs no hook'))).toBe(false);

    // Uninstall takes the trust back with the handlers.
    await init('codex', '--dir', place.project, '--uninstall');
    expect(readJson(hooks)).toEqual({});
    expect(codexRecordedTrust(parseToml(readFileSync(userConfig, 'utf8')) as Record<string, unknown>).size).toBe(0);
    expect(parseToml(readFileSync(config, 'utf8'))).toEqual({});
  });

  it('T49 codex --allow-read-tools approves the read-only tools on the server entry', async () => {
    await init('codex', '--dir', place.project, '--allow-read-tools');
    const config = parseToml(readFileSync(join(place.project, '.codex', 'config.toml'), 'utf8')) as { mcp_servers: Record<string, { tools: unknown }> };
    expect(config.mcp_servers['session-state-kit']!.tools).toEqual({ session_status: { approval_mode: 'approve' }, sessions_list: { approval_mode: 'approve' } });
  });

  it('T48 gemini: hooks and server in one settings.json, the timeout in milliseconds', async () => {
    const settings = join(place.project, '.gemini', 'settings.json');
    const run = await init('gemini', '--dir', place.project);
    expect(run.out.filter((l) => !l.startsWith('note: '))).toEqual([`wrote ${settings}`, `state database: ${db()}`]);
    expect(run.notes).toEqual([
      `Gemini CLI reads ${join(place.project, '.gemini')} only in a folder it trusts; init does not trust the folder for you.`,
      gitignoreNote(),
      'the MCP server init registers for Gemini CLI is not bound to a session (the CLI does not tell it who calls): through it a model can read and drain any session\'s notices, so use it only where every session on this database is yours (T44).',
    ]);
    expect(readJson(settings)).toEqual({ hooks: grouped('gemini', 30_000), mcpServers: { 'session-state-kit': server(db()) } });
    await init('gemini', '--dir', place.project, '--uninstall');
    expect(readJson(settings)).toEqual({});
  });

  it('T58 qwen: settings.json, and exactly the entry it wrote approved for this project; uninstall withdraws that approval', async () => {
    const settings = join(place.project, '.qwen', 'settings.json');
    const approvals = join(place.home, '.qwen', 'mcpApprovals.json');
    const run = await init('qwen', '--dir', place.project);
    expect(run.out.filter((l) => !l.startsWith('note: '))).toEqual([`wrote ${settings}`, `wrote ${approvals}`, `state database: ${db()}`]);
    expect(run.notes).toEqual([
      `Qwen Code starts a project's MCP server only once approved: init approved exactly the "session-state-kit" entry it wrote, for ${place.project}, in ${approvals} (any change to the entry makes Qwen ask again).`,
      gitignoreNote(),
    ]);
    const entry = server(db(), '--caller-session', 'qwen', '--visibility', 'all');
    expect(readJson(settings)).toEqual({ hooks: grouped('qwen', 30), mcpServers: { 'session-state-kit': entry } });
    expect(qwenApproval(approvals, readFileSync(approvals, 'utf8'), place.project)).toEqual({ hash: qwenMcpApprovalHash(entry), status: 'approved' });
    // Run again: the approval stands, nothing to say about it.
    expect((await init('qwen', '--dir', place.project)).notes).toEqual([gitignoreNote()]);
    await init('qwen', '--dir', place.project, '--uninstall');
    expect(readJson(approvals)).toEqual({});
    expect(readJson(settings)).toEqual({});
  });

  it('T58 qwen: a person\'s rejection of this very entry is kept, and an entry with keys init did not write is not approved', async () => {
    const approvals = join(place.home, '.qwen', 'mcpApprovals.json');
    await init('qwen', '--dir', place.project);
    const hash = qwenApproval(approvals, readFileSync(approvals, 'utf8'), place.project)!.hash;
    writeFileSync(approvals, JSON.stringify({ [place.project]: { 'session-state-kit': { hash, status: 'rejected' } } }));
    const run = await init('qwen', '--dir', place.project, '--visibility', 'all');
    expect(run.notes[0]).toBe(`you rejected the "session-state-kit" server for ${place.project} in Qwen Code; init leaves that as it is (Qwen will not start it; "qwen mcp approve session-state-kit" changes it).`);
    const settings = join(place.project, '.qwen', 'settings.json');
    const s = readJson(settings) as { mcpServers: Record<string, Record<string, unknown>> };
    s.mcpServers['session-state-kit']!['env'] = { TOKEN: 'x' };
    writeFileSync(settings, JSON.stringify(s));
    writeFileSync(approvals, '{}');
    const extra = await init('qwen', '--dir', place.project);
    expect(extra.notes[0]).toBe(`the "session-state-kit" server in ${settings} also has env, which init did not write: init does not approve it for Qwen Code; review the entry, then approve it with "qwen mcp approve session-state-kit" in ${place.project}.`);
    expect(readJson(approvals)).toEqual({});
  });

  it('T52 T55 copilot: the flat hooks file, the server under its own name where Copilot reads it', async () => {
    const hooks = join(place.project, '.github', 'hooks', 'session-state-kit.json');
    const mcp = join(place.project, '.github', 'mcp.json');
    const run = await init('copilot', '--dir', place.project);
    expect(run.out.filter((l) => !l.startsWith('note: '))).toEqual([`wrote ${hooks}`, `wrote ${mcp}`, `state database: ${db()}`]);
    expect(run.notes).toEqual([
      `Copilot reads ${join(place.project, '.github', 'hooks')} and ${mcp} only in a folder it trusts (it asks on the first interactive run; "copilot -p" needs --trust-folder); init does not trust the folder for you, and doctor says whether it is.`,
      gitignoreNote(),
    ]);
    const handler = { type: 'command', bash: hookLine('copilot', db()), timeoutSec: 30 };
    expect(readJson(hooks)).toEqual({ version: 1, hooks: Object.fromEntries(INIT_HOOK_EVENTS.copilot.map((e) => [e, [handler]])) });
    expect(readJson(mcp)).toEqual({ mcpServers: { 'session-state-kit-copilot': server(db(), '--caller-session', 'copilot', '--visibility', 'all') } });
    await init('copilot', '--dir', place.project, '--uninstall');
    // Copilot reports a hooks file without a hooks object as invalid: the emptied object stays.
    expect(readJson(hooks)).toEqual({ version: 1, hooks: {} });
    expect(readJson(mcp)).toEqual({});
  });

  it('T55 copilot: with a .mcp.json in the folder the entry goes there (Copilot then ignores .github/mcp.json), and leaves the file it no longer reads', async () => {
    const github = join(place.project, '.github', 'mcp.json');
    await init('copilot', '--dir', place.project);
    expect(readJson(github)['mcpServers']).toBeDefined();
    const dotMcp = join(place.project, '.mcp.json');
    writeFileSync(dotMcp, '{"mcpServers": {"docs": {"command": "docs-mcp", "args": []}}}\n');
    const run = await init('copilot', '--dir', place.project);
    expect(run.notes[1]).toBe(`${dotMcp} is also Claude Code's: it lists the "session-state-kit-copilot" server, which starts only under Copilot (it binds to the session Copilot names, T55), and Copilot lists Claude Code's, which starts only under Claude Code.`);
    expect(Object.keys(readJson(dotMcp)['mcpServers'] as object)).toEqual(['docs', 'session-state-kit-copilot']);
    expect(readJson(github)).toEqual({});
  });

  it('T63 opencode: the plugin file naming this copy\'s module, the server in opencode.json; uninstall removes the plugin', async () => {
    const plugin = join(place.project, '.opencode', 'plugins', 'session-state-kit.js');
    const config = join(place.project, 'opencode.json');
    const run = await init('opencode', '--dir', place.project);
    expect(run.out.filter((l) => !l.startsWith('note: '))).toEqual([`wrote ${plugin}`, `wrote ${config}`, `state database: ${db()}`]);
    expect(run.notes).toEqual([
      `OpenCode installs its own plugin package (@opencode-ai/plugin) with npm into ${join(place.project, '.opencode')} when it next starts, as into every config folder it reads; the kit's plugin does not use it.`,
      gitignoreNote(),
      'the MCP server init registers for OpenCode is not bound to a session (OpenCode tells it none, and one OpenCode process serves many sessions): through it a model can read and drain any session\'s notices, so use it only where every session on this database is yours (T64). The plugin knows each session, and tells its model the key to pass.',
    ]);
    const module = pathToFileURL(realpathSync(join(MAIN, '..', '..', 'integrations', 'opencode', 'index.ts'))).href;
    expect(readFileSync(plugin, 'utf8')).toBe(opencodePluginText(module, db()));
    expect(readJson(config)).toEqual({ mcp: { 'session-state-kit': { type: 'local', command: [process.execPath, ...launcher().slice(1), 'mcp', '--db', db()] } } });
    const back = await init('opencode', '--dir', place.project, '--uninstall');
    expect(back.out[0]).toMatch(/^removed .*session-state-kit\.js \(backup: .*session-state-kit\.js\.[0-9T-]+Z\.bak\)$/);
    expect(existsSync(plugin)).toBe(false);
    expect(readJson(config)).toEqual({});
  });

  it('T63 opencode: a plugin file init did not write, or wrote for another database, is never overwritten', async () => {
    const plugin = join(place.project, '.opencode', 'plugins', 'session-state-kit.js');
    mkdirSync(join(place.project, '.opencode', 'plugins'), { recursive: true });
    writeFileSync(plugin, 'export const Mine = async () => ({});\n');
    const error = await failure('opencode', '--dir', place.project);
    expect(error).toBeInstanceOf(CliError);
    expect(error!.exitCode).toBe(EXIT.failure);
    expect(error!.message).toBe(`${plugin} is not a plugin file init writes (it was changed, or is someone else's); nothing was written`);
    expect(error!.hints).toEqual(['move it away and run init opencode again']);
    // Uninstall leaves such a file too, and says why.
    expect((await init('opencode', '--dir', place.project, '--uninstall')).notes[0]).toBe(`${plugin} is not a plugin file init writes (it was changed, or is someone else's); init leaves it.`);

    const other = join(place.root, 'other.db');
    writeFileSync(plugin, opencodePluginText('file:///kit/opencode.js', other));
    const e2 = await failure('opencode', '--dir', place.project);
    expect(e2!.message).toBe(`${plugin} is init's plugin for another database (--db ${JSON.stringify(other)}); nothing was written`);
    expect(e2!.hints).toEqual([`remove it first: session-state-kit init opencode --uninstall --db ${other}`]);
    expect((await init('opencode', '--dir', place.project, '--uninstall')).notes[0]).toBe(`${plugin} is init's plugin for --db ${JSON.stringify(other)}; init leaves it (run init opencode --uninstall with that --db to remove it).`);
    expect(existsSync(join(place.project, 'opencode.json'))).toBe(false);
  });
});

describe('init around what is already there', () => {
  it('T45 --dry-run prints each change as a diff and the notes, and writes nothing', async () => {
    const run = await init('gemini', '--dir', place.project, '--dry-run');
    expect(run.code).toBe(EXIT.ok);
    expect(filesUnder(place.root)).toEqual([]);
    const settings = join(place.project, '.gemini', 'settings.json');
    expect(run.out[0]).toContain(settings);
    expect(run.out[0]).toContain(JSON.stringify(hookLine('gemini', db())).slice(1, 40));
    expect(run.notes).toHaveLength(3);
  });

  it('T45 a person\'s file keeps its keys and gets a backup of its bytes', async () => {
    const settings = join(place.project, '.claude', 'settings.json');
    mkdirSync(join(place.project, '.claude'));
    const mine = '{\n    "model": "opus",\n    "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "~/bin/done" }] }] }\n}\n';
    writeFileSync(settings, mine);
    const run = await init('claude-code', '--dir', place.project);
    const backup = /\(backup: (.*)\)$/.exec(run.out[0]!)![1]!;
    expect(readFileSync(backup, 'utf8')).toBe(mine);
    const after = readJson(settings) as { model: string; hooks: Record<string, unknown> };
    expect(after.model).toBe('opus');
    expect(after.hooks['Stop']).toEqual([{ hooks: [{ type: 'command', command: '~/bin/done' }] }]);
    expect(Object.keys(after.hooks)).toEqual(['Stop', ...INIT_HOOK_EVENTS['claude-code']]);
    await init('claude-code', '--dir', place.project, '--uninstall');
    expect(readJson(settings)).toEqual({ model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: '~/bin/done' }] }] } });
  });

  it('T45 a file that is not valid JSON stops the run at its line and column, with nothing written', async () => {
    const settings = join(place.project, '.claude', 'settings.json');
    mkdirSync(join(place.project, '.claude'));
    writeFileSync(settings, '{\n  "model": "opus",\n  // a comment\n}\n');
    const error = await failure('claude-code', '--dir', place.project);
    expect(error).toBeInstanceOf(CliError);
    expect(error!.message).toBe(`${settings}:3:3: not valid JSON (comments are not allowed in this file); nothing was written`);
    expect(error!.hints).toEqual(['fix the file (or move it away) and run init again']);
    expect(existsSync(join(place.project, '.mcp.json'))).toBe(false);
  });

  it('T45 a read-only file stops the run before anything is written', async () => {
    const mcp = join(place.project, '.mcp.json');
    writeFileSync(mcp, '{}\n');
    chmodSync(mcp, 0o444);
    const error = await failure('claude-code', '--dir', place.project);
    expect(error!.message).toBe(`${mcp} is read-only; nothing was written`);
    expect(error!.hints).toEqual(['make the file writable (or pick another scope) and run init again']);
    expect(existsSync(join(place.project, '.claude'))).toBe(false);
  });

  it('T45 --gitignore adds the state folder once, on a line of its own; a listed folder or a database elsewhere needs nothing', async () => {
    const ignore = join(place.project, '.gitignore');
    writeFileSync(ignore, 'node_modules');
    const run = await init('claude-code', '--dir', place.project, '--gitignore');
    expect(readFileSync(ignore, 'utf8')).toBe('node_modules\n.session-state-kit/\n');
    expect(run.notes).toEqual([]);
    expect(run.out).toContain(`wrote ${ignore} (backup: ${/\(backup: (.*)\)$/.exec(run.out.find((l) => l.startsWith(`wrote ${ignore}`))!)![1]})`);
    expect((await init('claude-code', '--dir', place.project, '--gitignore')).out[0]).toBe('nothing to change: claude-code is already set up with session-state-kit here');

    writeFileSync(ignore, '/.session-state-kit/  \n');
    expect((await init('gemini', '--dir', place.project)).notes.some((n) => n.includes('.gitignore'))).toBe(false);
    writeFileSync(ignore, '');
    const elsewhere = await init('copilot', '--dir', place.project, '--db', join(place.root, 'team.db'));
    expect(elsewhere.notes.some((n) => n.includes('.gitignore'))).toBe(false);
  });

  it('T45 --gitignore creates .gitignore where there is none', async () => {
    await init('gemini', '--dir', place.project, '--gitignore');
    expect(readFileSync(join(place.project, '.gitignore'), 'utf8')).toBe('.session-state-kit/\n');
  });

  it('T45 init leaves another database\'s hooks and a lookalike alone, and says so', async () => {
    const other = join(place.root, 'other.db');
    await init('claude-code', '--dir', place.project, '--db', other);
    const settings = join(place.project, '.claude', 'settings.json');
    const s = readJson(settings) as { hooks: Record<string, unknown[]> };
    s.hooks['Stop'] = [{ hooks: [{ type: 'command', command: 'echo session-state-kit' }] }];
    writeFileSync(settings, JSON.stringify(s));
    const run = await init('claude-code', '--dir', place.project);
    expect(run.notes).toEqual([
      `${settings} also has session-state-kit hooks for ${JSON.stringify(other)}; init leaves them as they are (run it with that --db to change them).`,
      `${settings} has 1 handler(s) that mention session-state-kit but are not a command init writes (Stop[0][0]); init leaves them untouched.`,
      gitignoreNote(),
    ]);
    const both = readJson(settings) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(both.hooks['SessionStart']!.map((g) => g.hooks[0]!.command)).toEqual([hookLine('claude-code', other), hookLine('claude-code', db())]);
    // Uninstalling with neither database's path finds nothing of its own there, and says which --db to pass.
    const none = await init('claude-code', '--dir', place.project, '--uninstall', '--db', join(place.root, 'third.db'));
    expect(none.notes.at(-1)).toBe(`nothing of init's for --db ${JSON.stringify(join(place.root, 'third.db'))} was found: pass the --db those hooks use to remove them.`);
  });
});

describe('init in the user scope, where each CLI keeps its own folder', () => {
  it('T45 claude-code --user: ~/.claude/settings.json and ~/.claude.json, the database in ~/.session-state-kit, no gitignore note', async () => {
    const userDb = join(place.home, '.session-state-kit', 'state.db');
    const run = await init('claude-code', '--user', '--dir', place.project);
    expect(run.out).toEqual([`wrote ${join(place.home, '.claude', 'settings.json')}`, `wrote ${join(place.home, '.claude.json')}`, `state database: ${userDb}`]);
    expect(readJson(join(place.home, '.claude.json'))).toEqual({ mcpServers: { 'session-state-kit': server(userDb, '--claude-code-session', '--visibility', 'all') } });
    expect(existsSync(join(place.home, '.session-state-kit'))).toBe(true);
    expect(filesUnder(place.project)).toEqual([]);
  });

  it('T45 T55 T58 T63 the folder variables are followed: CODEX_HOME, QWEN_HOME (with ~), COPILOT_HOME, XDG_CONFIG_HOME', async () => {
    process.env['CODEX_HOME'] = join(place.root, 'codex-home');
    process.env['QWEN_HOME'] = '~/qwen-here';
    process.env['COPILOT_HOME'] = join(place.root, 'copilot-home');
    process.env['XDG_CONFIG_HOME'] = join(place.root, 'xdg');
    const shared = join(place.root, 'team.db');
    const wrote = async (cli: string) => (await init(cli, '--user', '--dir', place.project, '--db', shared)).out.filter((l) => l.startsWith('wrote '));
    expect(await wrote('codex')).toEqual([`wrote ${join(place.root, 'codex-home', 'hooks.json')}`, `wrote ${join(place.root, 'codex-home', 'config.toml')}`]);
    expect(await wrote('qwen')).toEqual([`wrote ${join(place.home, 'qwen-here', 'settings.json')}`]);
    expect(await wrote('copilot')).toEqual([`wrote ${join(place.root, 'copilot-home', 'hooks', 'session-state-kit.json')}`, `wrote ${join(place.root, 'copilot-home', 'mcp-config.json')}`]);
    expect(await wrote('opencode')).toEqual([`wrote ${join(place.root, 'xdg', 'opencode', 'plugins', 'session-state-kit.js')}`, `wrote ${join(place.root, 'xdg', 'opencode', 'opencode.json')}`]);
    expect(await wrote('gemini')).toEqual([`wrote ${join(place.home, '.gemini', 'settings.json')}`]);
    expect(filesUnder(place.project)).toEqual([]);
  });

  it('T58 qwen --user in a project whose .mcp.json names the kit\'s server says the project entry wins there', async () => {
    writeFileSync(join(place.project, '.mcp.json'), JSON.stringify({ mcpServers: { 'session-state-kit': { command: 'x', args: [] } } }));
    const run = await init('qwen', '--user', '--dir', place.project);
    expect(run.notes).toEqual([
      `${join(place.project, '.mcp.json')} also names a "session-state-kit" server (Claude Code's, bound to Claude Code's session): in ${place.project} Qwen Code runs that entry instead of the one in ${join(place.home, '.qwen', 'settings.json')}; run "init qwen" (project) there, whose entry takes precedence.`,
    ]);
  });
});

describe('T45 T55 T58 T63 where each CLI\'s files are, from its variables', () => {
  it('T45 an empty variable is no variable; QWEN_HOME may be ~; the approvals file may be named', async () => {
    for (const k of ['CODEX_HOME', 'COPILOT_HOME', 'XDG_CONFIG_HOME', 'QWEN_HOME', 'QWEN_CODE_MCP_APPROVALS_PATH']) process.env[k] = '';
    const wrote = async (...argv: string[]) => (await init(...argv, '--dir', place.project, '--db', join(place.root, 'team.db'))).out.filter((l) => l.startsWith('wrote ')).map((l) => l.slice(6));
    expect(await wrote('codex', '--user')).toEqual([join(place.home, '.codex', 'hooks.json'), join(place.home, '.codex', 'config.toml')]);
    expect(await wrote('copilot', '--user')).toEqual([join(place.home, '.copilot', 'hooks', 'session-state-kit.json'), join(place.home, '.copilot', 'mcp-config.json')]);
    expect(await wrote('opencode', '--user')).toEqual([join(place.home, '.config', 'opencode', 'plugins', 'session-state-kit.js'), join(place.home, '.config', 'opencode', 'opencode.json')]);
    expect(await wrote('qwen', '--user')).toEqual([join(place.home, '.qwen', 'settings.json')]);
    expect(await wrote('qwen')).toEqual([join(place.project, '.qwen', 'settings.json'), join(place.home, '.qwen', 'mcpApprovals.json')]);
    process.env['QWEN_HOME'] = '~';
    process.env['QWEN_CODE_MCP_APPROVALS_PATH'] = join(place.root, 'approvals.json');
    expect(await wrote('qwen', '--user', '--uninstall')).toEqual([]);
    expect(await wrote('qwen', '--user')).toEqual([join(place.home, 'settings.json')]);
    rmSync(join(place.project, '.qwen'), { recursive: true });
    expect(await wrote('qwen')).toEqual([join(place.project, '.qwen', 'settings.json'), join(place.root, 'approvals.json')]);
  });

  it('T63 opencode writes its server where `opencode mcp add` would: the first config file that exists', async () => {
    const db = join(place.root, 'team.db');
    const make = (file: string) => {
      mkdirSync(join(place.project, file, '..'), { recursive: true });
      writeFileSync(join(place.project, file), '{}\n');
    };
    const serverIn = (file: string) => readJson(join(place.project, file))['mcp'] !== undefined;
    make('.opencode/opencode.jsonc');
    await init('opencode', '--dir', place.project, '--db', db);
    expect(serverIn('.opencode/opencode.jsonc')).toBe(true);
    await init('opencode', '--dir', place.project, '--db', db, '--uninstall');
    make('.opencode/opencode.json');
    make('opencode.jsonc');
    await init('opencode', '--dir', place.project, '--db', db);
    expect([serverIn('opencode.jsonc'), serverIn('.opencode/opencode.json'), serverIn('.opencode/opencode.jsonc')]).toEqual([true, false, false]);
  });
});

describe('T45 what init says, by scope and direction', () => {
  it('T45 uninstall says nothing but what it changed; the user scope owes no folder trust and no gitignore', async () => {
    for (const cli of ['claude-code', 'codex', 'gemini', 'qwen', 'copilot', 'opencode']) {
      await init(cli, '--dir', place.project);
      expect({ cli, notes: (await init(cli, '--dir', place.project, '--uninstall')).notes }).toEqual({ cli, notes: [] });
    }
    const user = async (cli: string) => (await init(cli, '--user', '--dir', place.project)).notes;
    expect(await user('claude-code')).toEqual([]);
    expect(await user('copilot')).toEqual([]);
    expect(await user('qwen')).toEqual([]);
    expect(await user('gemini')).toEqual(['the MCP server init registers for Gemini CLI is not bound to a session (the CLI does not tell it who calls): through it a model can read and drain any session\'s notices, so use it only where every session on this database is yours (T44).']);
    const codex = await user('codex');
    expect(codex).toHaveLength(2);
    expect(codex[0]).toMatch(/^Codex runs no hook it does not trust/);
  });

  it('T48 T58 T63 a settings file with comments is read as Gemini and Qwen read it, an OpenCode config with trailing commas as OpenCode does', async () => {
    const withComment = '{\n  // mine\n  "theme": "dark"\n}\n';
    for (const [cli, file] of [
      ['gemini', '.gemini/settings.json'],
      ['qwen', '.qwen/settings.json'],
    ] as const) {
      mkdirSync(join(place.project, file, '..'), { recursive: true });
      writeFileSync(join(place.project, file), withComment);
      expect((await init(cli, '--dir', place.project)).code).toBe(EXIT.ok);
      expect(readFileSync(join(place.project, file), 'utf8')).toContain('// mine');
    }
    writeFileSync(join(place.project, 'opencode.json'), '{\n  // mine\n  "theme": "dark",\n}\n');
    expect((await init('opencode', '--dir', place.project)).code).toBe(EXIT.ok);
    expect(readFileSync(join(place.project, 'opencode.json'), 'utf8')).toContain('"session-state-kit"');
    // Claude Code reads strict JSON: the same text is refused there, by its place.
    mkdirSync(join(place.project, '.claude'));
    writeFileSync(join(place.project, '.claude', 'settings.json'), withComment);
    await expect(init('claude-code', '--dir', place.project)).rejects.toThrow(/settings\.json:2:3: not valid JSON \(comments are not allowed in this file\)/);
  });
});
