import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { opencodePluginText, parseOpencodePluginText } from '../../src/cli/agent-config.js';
import { makeSandbox, type Sandbox } from '../agents/binaries.js';
import { runAsUser as run, useBuiltCli } from './helpers.js';

/**
 * T45, T47, T50, T63, T64 for OpenCode: what `init opencode` writes (a plugin file that pins this
 * copy of the kit, and the MCP entry), the guarantees every init keeps, and what `doctor` says.
 * The real binary reads what init wrote in test/agents/opencode.test.ts.
 */
const cli = useBuiltCli();
const boxes: Sandbox[] = [];
afterAll(() => boxes.forEach((b) => b.remove()));
const sandbox = (): Sandbox & { db: string; env: Record<string, string> } => {
  const box = makeSandbox('init-opencode');
  boxes.push(box);
  return Object.assign(box, { db: join(box.root, 'team.db'), env: { HOME: box.home } });
};
/** The module init names: the plugin module beside the CLI it runs, by its real path (T50). */
const kitModule = () => pathToFileURL(join(dirname(realpathSync(cli.path())), 'opencode.mjs')).href;
const pluginPath = (dir: string) => join(dir, '.opencode', 'plugins', 'session-state-kit.js');
const entry = (db: string) => ({ type: 'local', command: [process.execPath, realpathSync(cli.path()), 'mcp', '--db', db] });
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
const backups = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.bak')) : []);

describe('T63 init opencode: the files and what is in them', () => {
  it('T63 T50 T64 --project writes .opencode/plugins/session-state-kit.js, which imports this copy of the kit by absolute path, and the unbound MCP entry in opencode.json; a second run changes nothing', async () => {
    const s = sandbox();
    const r = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(pluginPath(s.project), 'utf8');
    expect(text).toBe(opencodePluginText(kitModule(), s.db));
    expect(text).toContain(`import { sessionStatePlugin } from "${kitModule()}";`);
    expect(text).toContain(`export const SessionStateKit = sessionStatePlugin({ db: ${JSON.stringify(s.db)} });`);
    expect(parseOpencodePluginText(text)).toEqual({ module: kitModule(), db: s.db });
    expect(json(join(s.project, 'opencode.json'))).toEqual({ mcp: { 'session-state-kit': entry(s.db) } });
    // T64: not bound, and init says what that means; OpenCode will install its own package there.
    expect(r.stdout).toContain('the MCP server init registers for OpenCode is not bound to a session');
    expect(r.stdout).toContain(`OpenCode installs its own plugin package (@opencode-ai/plugin) with npm into ${join(s.project, '.opencode')}`);
    const again = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(again.stdout).toContain('nothing to change: opencode is already set up with session-state-kit here');
  });

  it('T63 --user writes under $XDG_CONFIG_HOME/opencode (~/.config/opencode by default); the entry goes into the opencode.jsonc OpenCode made, its comment kept', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'opencode', '--user', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(join(s.home, '.config', 'opencode', 'plugins', 'session-state-kit.js'), 'utf8')).toBe(opencodePluginText(kitModule(), s.db));
    expect(json(join(s.home, '.config', 'opencode', 'opencode.json'))['mcp']['session-state-kit']).toEqual(entry(s.db));
    const xdg = join(s.root, 'xdg');
    const jsonc = `{\n  // made by OpenCode on its first start\n  "$schema": "https://opencode.ai/config.json"\n}`;
    mkdirSync(join(xdg, 'opencode'), { recursive: true });
    writeFileSync(join(xdg, 'opencode', 'opencode.jsonc'), jsonc);
    const r = await run(cli.path(), ['init', 'opencode', '--user', '--db', s.db], { ...s.env, XDG_CONFIG_HOME: xdg }, s.project);
    expect(r.code, r.stderr).toBe(0);
    const merged = readFileSync(join(xdg, 'opencode', 'opencode.jsonc'), 'utf8');
    expect(merged).toContain('// made by OpenCode on its first start');
    expect(merged).toContain('"session-state-kit"');
    expect(existsSync(join(xdg, 'opencode', 'opencode.json'))).toBe(false);
    expect(existsSync(join(xdg, 'opencode', 'plugins', 'session-state-kit.js'))).toBe(true);
    // Uninstall gives OpenCode's file back byte for byte and removes the plugin file it wrote.
    expect((await run(cli.path(), ['init', 'opencode', '--user', '--uninstall', '--db', s.db], { ...s.env, XDG_CONFIG_HOME: xdg }, s.project)).code).toBe(0);
    expect(readFileSync(join(xdg, 'opencode', 'opencode.jsonc'), 'utf8')).toBe(jsonc);
    expect(existsSync(join(xdg, 'opencode', 'plugins', 'session-state-kit.js'))).toBe(false);
  });

  it('T45 T63 a project config with comments, a provider and another server: init merges its entry and keeps every other byte; uninstall gives the file back byte for byte, removes its plugin file, and each changed or removed file was backed up first', async () => {
    const s = sandbox();
    const text = `{\r\n  // the team's model\r\n  "model": "anthropic/claude-sonnet-4-5",\r\n  "mcp": {\r\n    "docs": { "type": "remote", "url": "https://example.invalid/mcp" }\r\n  },\r\n  "big": 12345678901234567890\r\n}\r\n`;
    writeFileSync(join(s.project, 'opencode.jsonc'), text);
    const r = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    const merged = readFileSync(join(s.project, 'opencode.jsonc'), 'utf8');
    expect(merged).toContain('// the team\'s model');
    expect(merged).toContain('12345678901234567890');
    expect(merged).toContain('"docs": { "type": "remote", "url": "https://example.invalid/mcp" }');
    expect(merged.split('\n').every((l, i, all) => i === all.length - 1 || l.endsWith('\r'))).toBe(true);
    expect(existsSync(join(s.project, 'opencode.json'))).toBe(false);
    expect(backups(s.project)).toHaveLength(1);
    expect(readFileSync(join(s.project, backups(s.project)[0]!), 'utf8')).toBe(text);
    const gone = await run(cli.path(), ['init', 'opencode', '--uninstall', '--db', s.db], s.env, s.project);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stdout).toContain(`removed ${pluginPath(s.project)} (backup: `);
    expect(readFileSync(join(s.project, 'opencode.jsonc'), 'utf8')).toBe(text);
    expect(existsSync(pluginPath(s.project))).toBe(false);
    const pluginBackups = backups(join(s.project, '.opencode', 'plugins'));
    expect(pluginBackups).toHaveLength(1);
    expect(readFileSync(join(s.project, '.opencode', 'plugins', pluginBackups[0]!), 'utf8')).toBe(opencodePluginText(kitModule(), s.db));
  });

  it('T45 --dry-run shows the change and writes nothing; a config that is not valid JSONC is refused by line and column, nothing written (the plugin file either)', async () => {
    const s = sandbox();
    const dry = await run(cli.path(), ['init', 'opencode', '--dry-run', '--db', s.db], s.env, s.project);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`+++ ${pluginPath(s.project)}`);
    expect(dry.stdout).toMatch(/^\+ ?import \{ sessionStatePlugin \} from "file:/m);
    expect(dry.stdout).toContain(`+++ ${join(s.project, 'opencode.json')}`);
    expect(existsSync(join(s.project, '.opencode'))).toBe(false);
    expect(existsSync(join(s.project, 'opencode.json'))).toBe(false);
    writeFileSync(join(s.project, 'opencode.json'), '{\n  "mcp": {\n    "x": { "type": "local" }\n  \n');
    const bad = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`${join(s.project, 'opencode.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:1: not valid JSON \\(\\w+\\); nothing was written`));
    expect(existsSync(join(s.project, '.opencode'))).toBe(false);
  });

  it('T45 T63 trailing commas, which OpenCode reads, are kept: init merges its entry after them and uninstall gives the file back byte for byte; Claude Code\'s strict settings still refuse one', async () => {
    const s = sandbox();
    const original = '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "other": { "type": "local", "command": ["other-server",], },\n  },\n}\n';
    writeFileSync(join(s.project, 'opencode.json'), original);
    const r = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    const merged = readFileSync(join(s.project, 'opencode.json'), 'utf8');
    expect(merged).toContain('"command": ["other-server",], },');
    const parsed = (await import('jsonc-parser')).parse(merged, [], { allowTrailingComma: true }) as Record<string, any>;
    expect(Object.keys(parsed['mcp'])).toEqual(['other', 'session-state-kit']);
    expect(parsed['mcp']['session-state-kit']).toEqual(entry(s.db));
    const removed = await run(cli.path(), ['init', 'opencode', '--uninstall', '--db', s.db], s.env, s.project);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(join(s.project, 'opencode.json'), 'utf8')).toBe(original);
    mkdirSync(join(s.project, '.claude'), { recursive: true });
    writeFileSync(join(s.project, '.claude', 'settings.json'), '{ "hooks": {}, }\n');
    const strict = await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/settings\.json:1:\d+: not valid JSON/);
  });

  it('T63 a plugin file init does not own is never overwritten or removed: a person\'s file, init\'s for another database, init\'s with one byte changed', async () => {
    const s = sandbox();
    mkdirSync(dirname(pluginPath(s.project)), { recursive: true });
    const mine = 'export const Mine = async () => ({});\n';
    writeFileSync(pluginPath(s.project), mine);
    const refused = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${pluginPath(s.project)} is not a plugin file init writes (it was changed, or is someone else's); nothing was written`);
    expect(readFileSync(pluginPath(s.project), 'utf8')).toBe(mine);
    expect(existsSync(join(s.project, 'opencode.json'))).toBe(false);
    const keptOnUninstall = await run(cli.path(), ['init', 'opencode', '--uninstall', '--db', s.db], s.env, s.project);
    expect(keptOnUninstall.stdout).toContain('is not a plugin file init writes (it was changed, or is someone else\'s); init leaves it.');
    expect(readFileSync(pluginPath(s.project), 'utf8')).toBe(mine);
    // Init's own for another database: refused, with the command that removes it.
    const other = join(s.root, 'other.db');
    writeFileSync(pluginPath(s.project), opencodePluginText(kitModule(), other));
    const second = await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is init's plugin for another database (--db ${JSON.stringify(other)}); nothing was written`);
    expect(second.stderr).toContain(`session-state-kit init opencode --uninstall --db ${other}`);
    expect((await run(cli.path(), ['init', 'opencode', '--uninstall', '--db', s.db], s.env, s.project)).stdout).toContain(`is init's plugin for --db ${JSON.stringify(other)}; init leaves it`);
    expect(existsSync(pluginPath(s.project))).toBe(true);
    // One byte changed: a person's file now.
    writeFileSync(pluginPath(s.project), `${opencodePluginText(kitModule(), s.db)} `);
    expect(parseOpencodePluginText(readFileSync(pluginPath(s.project), 'utf8'))).toBeUndefined();
    expect((await run(cli.path(), ['init', 'opencode', '--uninstall', '--db', s.db], s.env, s.project)).stdout).toContain('init leaves it.');
    expect(existsSync(pluginPath(s.project))).toBe(true);
  });

  it('T63 T64 --trust, --visibility and --allow-read-tools are refused for OpenCode, and mcp --caller-session opencode says why a server cannot be bound there', async () => {
    const s = sandbox();
    const trust = await run(cli.path(), ['init', 'opencode', '--trust', '--db', s.db], s.env, s.project);
    expect(trust.stderr).toContain('OpenCode has no trust step');
    const visibility = await run(cli.path(), ['init', 'opencode', '--visibility', 'self', '--db', s.db], s.env, s.project);
    expect(visibility.stderr).toContain('the opencode server is not told which session calls it');
    const tools = await run(cli.path(), ['init', 'opencode', '--allow-read-tools', '--db', s.db], s.env, s.project);
    expect(tools.stderr).toContain('OpenCode runs MCP tools without asking');
    for (const r of [trust, visibility, tools]) expect(r.code).toBe(2);
    expect(existsSync(join(s.project, '.opencode'))).toBe(false);
    const mcp = await run(cli.path(), ['mcp', '--db', s.db, '--caller-session', 'opencode'], s.env, s.project);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toContain('--caller-session opencode: OpenCode names no session to its MCP servers (it sets OPENCODE=1 and OPENCODE_PID only), and one OpenCode process serves many sessions');
  });
});

describe('T47 T63 doctor for OpenCode', () => {
  it('T47 T63 after init: the plugin is init\'s, pinned to this copy, loads and takes its database; the database can open; the MCP entry is pinned', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project)).code).toBe(0);
    const r = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ok {4}opencode {4}project plugin installed +${pluginPath(s.project).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: for `, 'm'));
    expect(r.stdout).toMatch(/^ok {4}opencode {4}project plugin pinned +the plugin imports this copy of the kit by absolute path$/m);
    expect(r.stdout).toMatch(/^ok {4}opencode {4}project plugin loads +the plugin module loads and takes its database/m);
    expect(r.stdout).toMatch(/^ok {4}opencode {4}project database /m);
    expect(r.stdout).toMatch(/^ok {4}opencode {4}project MCP server +.*opencode\.json: pinned to this copy of the kit$/m);
    // Doctor created nothing.
    expect(existsSync(s.db)).toBe(false);
  });

  it('T47 T63 doctor never loads a plugin it did not write for this copy: another copy\'s module is reported and not imported, a moved kit and a person\'s file are failures', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'opencode', '--db', s.db], s.env, s.project)).code).toBe(0);
    // Another copy of the kit, whose module would leave a mark if anything imported it.
    const mark = join(s.root, 'imported');
    const other = s.write('other-kit/dist/opencode.js', `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, 'x');\nexport const sessionStatePlugin = () => async () => ({});\n`);
    writeFileSync(pluginPath(s.project), opencodePluginText(pathToFileURL(other).href, s.db));
    const r = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}opencode {4}project plugin pinned +the plugin imports another copy of the kit \(.*other-kit\/dist\/opencode\.js\), which doctor does not load/m);
    expect(r.stdout).not.toMatch(/plugin loads/);
    expect(existsSync(mark)).toBe(false);
    writeFileSync(pluginPath(s.project), opencodePluginText(pathToFileURL(join(s.root, 'gone', 'opencode.js')).href, s.db));
    expect((await run(cli.path(), ['doctor'], s.env, s.project)).stdout).toMatch(/^FAIL {2}opencode {4}project plugin pinned +the plugin imports .*gone\/opencode\.js, which no longer exists \(the kit moved\): run init opencode again$/m);
    writeFileSync(pluginPath(s.project), 'export const Mine = async () => ({});\n');
    expect((await run(cli.path(), ['doctor'], s.env, s.project)).stdout).toMatch(/^FAIL {2}opencode {4}project plugin not run +.*not a plugin file init writes \(changed, or someone else's\); doctor does not load it$/m);
  });
});
