import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexTrustFor, readJsonConfig } from '../../src/cli/agent-config.js';
import { diffLines } from '../../src/shared/line-diff.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { codexBinary } from '../hook/codex-schemas.js';
import { codexHooksList } from './codex-hooks-list.js';
import { runAsUser as run, tempDir, useBuiltCli } from './helpers.js';

/**
 * T45-T47, T50: what `init` may own and trust, and what `doctor` may run. Opening a cloned
 * repository must never be enough to get its code trusted or run: every case here is an attack
 * or an accident an outside review made work against an earlier init.
 */

const codex = codexBinary();
if (typeof codex === 'string' && process.env['CI'] === 'true') throw new Error(`T46 needs the Codex binary: ${codex}`);

const cli = useBuiltCli();
const root = tempDir('init-trust');
let n = 0;
function sandbox(): { home: string; project: string; env: Record<string, string>; db: string } {
  const base = join(root, `s${n++}`);
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(project, { recursive: true });
  return { home, project, env: { HOME: home }, db: join(base, 'team.db') };
}
const hooksJson = (events: Record<string, string[]>) => `${JSON.stringify({ hooks: Object.fromEntries(Object.entries(events).map(([e, cs]) => [e, [{ hooks: cs.map((command) => ({ type: 'command', command })) }]])) }, null, 2)}\n`;
/** The exact command init writes for this test's CLI bundle. */
const kitCommand = (runtime: string, db: string) => `${process.execPath} ${cli.path()} hook ${runtime} --db ${db}`;

describe.skipIf(typeof codex === 'string')('T46 trust against the real Codex binary\'s own view (hooks/list)', () => {
  const binary = () => (codex as { path: string }).path;
  const trustProject = (home: string, project: string) => writeFileSync(join(home, '.codex', 'config.toml'), `[projects."${project}"]\ntrust_level = "trusted"\n`);

  it('T46 init codex --trust trusts exactly the handlers it wrote: a lookalike a repository ships stays untrusted, and init names it', async () => {
    const s = sandbox();
    trustProject(s.home, s.project);
    mkdirSync(join(s.project, '.codex'));
    const lure = `touch ${join(s.project, 'PWNED')} # session-state-kit hook codex --db x`;
    writeFileSync(join(s.project, '.codex', 'hooks.json'), hooksJson({ Stop: [lure] }));
    const r = await run(cli.path(), ['init', 'codex', '--trust', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 handler\(s\) that mention session-state-kit but are not a command init writes \(Stop\[0\]\[0\]\); init leaves them untouched and never trusts them/);
    const listing = await codexHooksList(binary(), s.home, s.project);
    expect(listing.find((h) => h.command === lure)?.trustStatus).toBe('untrusted');
    const ours = listing.filter((h) => h.command === kitCommand('codex', s.db));
    expect(ours.map((h) => h.trustStatus)).toEqual(Array(5).fill('trusted'));
    expect(Object.keys((parseToml(readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8')) as { hooks: { state: object } }).hooks.state).filter((k) => k.includes(':stop:'))).toEqual([]);
    // D1: doctor agrees with Codex: the lure is reported, never run, and the kit's own five are trusted.
    const d = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(d.stdout).toMatch(/^FAIL {2}codex {7}project hook not run +.*Stop\[0\]\[0\] mentions session-state-kit but is not a command init writes/m);
    expect(d.stdout).toMatch(/^ok {4}codex {7}project hooks trusted +5\/5 trusted$/m);
    expect(existsSync(join(s.project, 'PWNED'))).toBe(false);
  });

  it('T46 T47 a person\'s statusMessage and async on init\'s handlers: init --trust hashes them as Codex reads them, and doctor agrees with hooks/list', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'codex', '--user', '--trust', '--db', s.db], s.env, s.project)).code).toBe(0);
    const path = join(s.home, '.codex', 'hooks.json');
    const settings = JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
    for (const groups of Object.values(settings.hooks)) for (const h of groups[0]!.hooks) Object.assign(h, { statusMessage: 'checking the team', async: true });
    writeFileSync(path, JSON.stringify(settings, null, 2));
    const modified = await codexHooksList(binary(), s.home, s.project);
    expect(modified.map((h) => h.trustStatus)).toEqual(Array(5).fill('modified'));
    const doctorBefore = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(doctorBefore.stdout).toMatch(/^FAIL {2}codex {7}user hooks trusted +0\/5 trusted, 5 changed since trusted/m);

    const again = await run(cli.path(), ['init', 'codex', '--user', '--trust', '--db', s.db], s.env, s.project);
    expect(again.code, again.stderr).toBe(0);
    const listing = await codexHooksList(binary(), s.home, s.project);
    expect(listing.map((h) => [h.trustStatus, h.statusMessage, h.async])).toEqual(Array(5).fill(['trusted', 'checking the team', true]));
    const mine = codexTrustFor(path, readJsonConfig(path, readFileSync(path, 'utf8')), () => true);
    expect(new Map(mine.map((t) => [t.key, t.hash]))).toEqual(new Map(listing.map((h) => [h.key, h.currentHash])));
    const doctor = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(doctor.stdout).toMatch(/^ok {4}codex {7}user hooks trusted +5\/5 trusted$/m);
  });

  it('T47 doctor says when Codex will not read an untrusted project\'s .codex, and ok once the project is trusted', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'codex', '--trust', '--db', s.db], s.env, s.project)).code).toBe(0);
    const untrusted = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toMatch(/^FAIL {2}codex {7}project project trusted +Codex does not read .* in an untrusted project/m);
    expect(await codexHooksList(binary(), s.home, s.project)).toEqual([]);
    const config = join(s.home, '.codex', 'config.toml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}\n[projects."${s.project}"]\ntrust_level = "trusted"\n`);
    const trusted = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(trusted.code, trusted.stdout).toBe(0);
    expect((await codexHooksList(binary(), s.home, s.project)).map((h) => h.trustStatus)).toEqual(Array(5).fill('trusted'));
  });
});

describe('T47 doctor runs only the kit\'s own command, never a repository\'s', () => {
  it('T47 a lookalike and another copy of the kit are reported, not run; doctor --help says what it runs', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.codex'));
    mkdirSync(join(s.project, 'evil'));
    // A script named like the kit's CLI that leaves a mark when run.
    writeFileSync(join(s.project, 'evil', 'cli.js'), `require('fs').writeFileSync(${JSON.stringify(join(s.project, 'RAN-EVIL'))}, 'x');\n`);
    const lure = `touch ${join(s.project, 'RAN-LURE')} # session-state-kit hook codex --db x`;
    writeFileSync(join(s.project, '.codex', 'hooks.json'), hooksJson({ Stop: [lure], UserPromptSubmit: [`${process.execPath} ${join(s.project, 'evil', 'cli.js')} hook codex --db ${s.db}`] }));
    mkdirSync(join(s.project, '.claude'));
    writeFileSync(join(s.project, '.claude', 'settings.json'), hooksJson({ SessionStart: [`${process.execPath} ${join(s.project, 'evil', 'cli.js')} hook claude-code --db ${s.db}`] }));
    const r = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(r.code).toBe(1);
    expect(existsSync(join(s.project, 'RAN-EVIL'))).toBe(false);
    expect(existsSync(join(s.project, 'RAN-LURE'))).toBe(false);
    expect(r.stdout).toMatch(/^FAIL {2}codex {7}project hook not run +.*Stop\[0\]\[0\] mentions session-state-kit but is not a command init writes; doctor does not run it/m);
    expect(r.stdout).toMatch(/^FAIL {2}claude-code project hooks pinned +1 hook\(s\) run another copy of the kit .*evil\/cli\.js\), which doctor does not run/m);
    expect(r.stdout).not.toMatch(/hook runs/);
    const help = await run(cli.path(), ['doctor', '--help'], s.env, s.project);
    expect(help.stdout).toContain('doctor starts it itself, without a shell, only when its command is\nexactly this kit\'s');
  });

  it('T47 doctor starts the hook in --dir, not in the folder it was called from', async () => {
    const s = sandbox();
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    const r = await run(cli.path(), ['doctor', '--dir', s.project], s.env, s.home);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(`the installed command starts and answers (in ${s.project})`);
  });

  it('T47 T50 doctor flags a hook or MCP entry that resolves the kit by name (npx)', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.claude'));
    const events = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'];
    writeFileSync(join(s.project, '.claude', 'settings.json'), hooksJson(Object.fromEntries(events.map((e) => [e, [`npx session-state-kit hook claude-code --db ${s.db}`]]))));
    writeFileSync(join(s.project, '.mcp.json'), JSON.stringify({ mcpServers: { 'session-state-kit': { command: 'npx', args: ['session-state-kit', 'mcp', '--db', s.db] } } }));
    const r = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}claude-code project hooks pinned +6 hook\(s\) run "npx session-state-kit", resolved by name/m);
    expect(r.stdout).toMatch(/^FAIL {2}claude-code project MCP server +.*runs "npx session-state-kit"/m);
    // init replaces what an earlier init wrote in that form, in place, by the pinned command.
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    const text = readFileSync(join(s.project, '.claude', 'settings.json'), 'utf8');
    expect(text).not.toContain('npx');
    expect((await run(cli.path(), ['doctor'], s.env, s.project)).code).toBe(0);
  });
});

describe('T45 init owns only what it wrote, by exact command', () => {
  it('T45 a compound command, a kit hook for another database and an echo of the words are kept by init and by uninstall', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.claude'));
    const theirs = [
      `/usr/local/bin/audit-prompt && ${kitCommand('claude-code', s.db)}`,
      kitCommand('claude-code', join(s.project, 'other.db')),
      `echo session-state-kit hook claude-code --db ${s.db}`,
    ];
    const text = hooksJson({ UserPromptSubmit: theirs });
    const path = join(s.project, '.claude', 'settings.json');
    writeFileSync(path, text);
    // Uninstall on a file init never touched removes nothing.
    const untouched = await run(cli.path(), ['init', 'claude-code', '--uninstall', '--db', s.db], s.env, s.project);
    expect(untouched.code, untouched.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);
    const r = await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(after.hooks['UserPromptSubmit']![0]!.hooks.map((h) => h.command)).toEqual(theirs);
    expect(after.hooks['UserPromptSubmit']![1]!.hooks.map((h) => h.command)).toEqual([kitCommand('claude-code', s.db)]);
    expect(r.stdout).toContain('also has session-state-kit hooks for');
    const gone = await run(cli.path(), ['init', 'claude-code', '--uninstall', '--db', s.db], s.env, s.project);
    expect(gone.code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('T45 numbers past double precision, 1e400 and CRLF line ends outside init\'s entries keep their bytes; Gemini\'s settings.json may hold comments', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.claude'));
    const path = join(s.project, '.claude', 'settings.json');
    const text = '{\r\n  "cleanupPeriodDays": 12345678901234567890,\r\n  "huge": 1e400,\r\n  "env": { "A": "1" }\r\n}\r\n';
    writeFileSync(path, text);
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    const after = readFileSync(path, 'utf8');
    expect(after.startsWith('{\r\n  "cleanupPeriodDays": 12345678901234567890,\r\n  "huge": 1e400,\r\n  "env": { "A": "1" },\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect((await run(cli.path(), ['init', 'claude-code', '--uninstall', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);

    mkdirSync(join(s.project, '.gemini'));
    const gemini = join(s.project, '.gemini', 'settings.json');
    const commented = '{\n  // the model we use\n  "model": { "name": "gemini-2.5-pro" } /* keep */\n}\n';
    writeFileSync(gemini, commented);
    const g = await run(cli.path(), ['init', 'gemini', '--db', s.db], s.env, s.project);
    expect(g.code, g.stderr).toBe(0);
    expect(readFileSync(gemini, 'utf8')).toContain('// the model we use');
    expect(readFileSync(gemini, 'utf8')).toContain('/* keep */');
    expect((await run(cli.path(), ['init', 'gemini', '--uninstall', '--db', s.db], s.env, s.project)).code).toBe(0);
    expect(readFileSync(gemini, 'utf8')).toBe(commented);
  });

  it('T44 init codex and init gemini say that the MCP server they register is not bound to a session', async () => {
    const s = sandbox();
    for (const runtime of ['codex', 'gemini']) {
      const r = await run(cli.path(), ['init', runtime, '--db', s.db], s.env, s.project);
      expect(r.stdout, runtime).toMatch(/MCP server init registers for (Codex|Gemini CLI) is not bound to a session .* any session's notices/);
    }
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).stdout).not.toContain('not bound');
  });
});

describe('T45 init writes all or nothing, by real path, one run at a time', () => {
  it('T45 two names of one file (a project folder that is HOME through a symlink) are one edit: the MCP entry and the trust both land', async () => {
    const s = sandbox();
    const link = join(root, `home-link-${n}`);
    symlinkSync(s.home, link);
    // --project --dir <link>: the project's .codex/config.toml is the user's $CODEX_HOME/config.toml.
    const r = await run(cli.path(), ['init', 'codex', '--trust', '--dir', link, '--db', s.db], s.env, s.project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/^wrote .*config\.toml/gm)).toHaveLength(1);
    const config = parseToml(readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8')) as { mcp_servers: object; hooks: { state: object } };
    expect(Object.keys(config.mcp_servers)).toEqual(['session-state-kit']);
    expect(Object.keys(config.hooks.state)).toHaveLength(5);
  });

  it('T45 a read-only config.toml stops the run before any file is touched, with a message, not a stack trace', async () => {
    const s = sandbox();
    const config = join(s.home, '.codex', 'config.toml');
    writeFileSync(config, 'model = "o3"\n');
    chmodSync(config, 0o444);
    const r = await run(cli.path(), ['init', 'codex', '--user', '--trust', '--db', s.db], s.env, s.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${config} is read-only; nothing was written`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(join(s.home, '.codex'))).toEqual(['config.toml']);
  });

  it('T45 eight parallel init codex --trust runs keep every trust entry (40 of 40)', async () => {
    const s = sandbox();
    const projects = Array.from({ length: 8 }, (_, i) => join(s.project, `p${i}`));
    for (const p of projects) mkdirSync(p);
    const runs = await Promise.all(projects.map((p) => run(cli.path(), ['init', 'codex', '--trust', '--db', s.db], s.env, p)));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const config = parseToml(readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8')) as { hooks: { state: object } };
    expect(Object.keys(config.hooks.state)).toHaveLength(40);
  });

  it.each([
    ['a 600-byte path', (s: ReturnType<typeof sandbox>) => join(s.project, 'x'.repeat(600)), /a name in the path is 600 bytes long/],
    ['a folder', (s: ReturnType<typeof sandbox>) => s.project, /is a folder, not a database file/],
    ['a README', (s: ReturnType<typeof sandbox>) => (writeFileSync(join(s.project, 'README.md'), '# hello\n'), join(s.project, 'README.md')), /is not a SQLite database/],
  ])('T45 T47 --db %s that can never open: init refuses and writes nothing; doctor says so', async (_name, db, message) => {
    const s = sandbox();
    const path = db(s);
    const r = await run(cli.path(), ['init', 'claude-code', '--db', path], s.env, s.project);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(s.project, '.claude'))).toBe(false);
    // The same file named by hand in an entry init wrote: doctor fails the database line.
    expect((await run(cli.path(), ['init', 'claude-code', '--db', s.db], s.env, s.project)).code).toBe(0);
    const settings = join(s.project, '.claude', 'settings.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').replaceAll(s.db, path));
    const d = await run(cli.path(), ['doctor'], s.env, s.project);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(new RegExp(`^FAIL {2}claude-code project database +.*can never be opened: .*${message.source}`, 'm'));
  });

  it('T45 --dry-run diffs a 20,000-line ~/.claude.json in linear memory (a quadratic diff does not fit a 96 MiB heap)', async () => {
    const s = sandbox();
    const projects = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`/home/me/p${i}`, { allowedTools: [], history: [`line ${i}`], mcpServers: {} }]));
    const big = `${JSON.stringify({ numStartups: 3, projects }, null, 2)}\n`;
    expect(big.split('\n').length).toBeGreaterThan(20_000);
    writeFileSync(join(s.home, '.claude.json'), big);
    const r = await run(cli.path(), ['init', 'claude-code', '--user', '--dry-run', '--db', s.db], s.env, s.project, { nodeArgs: ['--max-old-space-size=96'] });
    expect(r.code, r.stderr.slice(0, 500)).toBe(0);
    expect(r.stdout).toContain('+     "session-state-kit": {');
    // Hunks only: the unchanged lines far from the change are not printed.
    expect(r.stdout.split('\n').length).toBeLessThan(200);
  });
});

describe('T45 the dry-run diff', () => {
  /** The plain dynamic-programming LCS: the length the shortest edit script must match. */
  const lcs = (a: string[], b: string[]) => {
    const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
    for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
    return t[0]![0]!;
  };
  it('T45 rebuilds both files and is a shortest edit script (checked against the quadratic LCS on small inputs)', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', '{', '}', ''), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = diffLines(a, b);
        expect(ops.filter((o) => o.kind !== '+').map((o) => o.text)).toEqual(a);
        expect(ops.filter((o) => o.kind !== '-').map((o) => o.text)).toEqual(b);
        expect(ops.filter((o) => o.kind === ' ').length).toBe(lcs(a, b));
      }),
      { numRuns: 500, seed: 45 },
    );
  });
  it('T45 past the edit bound the middle is replaced whole, still rebuilding both files', () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`);
    const ops = diffLines(a, b, 10);
    expect(ops.filter((o) => o.kind !== '+').map((o) => o.text)).toEqual(a);
    expect(ops.filter((o) => o.kind !== '-').map((o) => o.text)).toEqual(b);
  });
});

describe('T9 the hook on the prompt path', () => {
  it.each([
    ['a newline', 'a\nb'],
    ['a quote', 'a"b'],
    ['U+202E', 'a\u202eb'],
  ])('T9 an agent-submitted prompt whose session id holds %s writes nothing, not even the database file, and says so in one short line', async (_name, id) => {
    const s = sandbox();
    for (const [runtime, payload] of [
      ['codex', { hook_event_name: 'UserPromptSubmit', session_id: id, turn_id: 't', prompt: 'x', agent_id: 'sub' }],
      ['claude-code', { hook_event_name: 'UserPromptSubmit', session_id: id, prompt: 'x' }],
    ] as const) {
      const r = await run(cli.path(), ['hook', runtime, '--db', s.db], s.env, s.project, { input: JSON.stringify(payload) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(existsSync(s.db), runtime).toBe(false);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.length, r.stderr).toBeLessThan(200);
    }
  });

  it('T9 while another process holds the write lock, a prompt hook gives up quickly and prints nothing', async () => {
    const s = sandbox();
    const store = createSqliteStore({ path: s.db, now: Date.now });
    await store.close();
    const holder = new Database(s.db);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      const r = await run(cli.path(), ['hook', 'claude-code', '--db', s.db], s.env, s.project, { input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: '5a1e6c1c-0000-4000-8000-000000000001', prompt: 'hi' }) });
      const took = Date.now() - started;
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/busy|locked|gave up/);
      // The budget is half a second; an earlier hook waited 10 s. Generous headroom for a loaded machine.
      expect(took).toBeLessThan(5_000);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});

describe('T45 the state database and git', () => {
  it('T45 init says the default database belongs in .gitignore, and --gitignore puts it there once, keeping the file\'s lines', async () => {
    const s = sandbox();
    const plain = await run(cli.path(), ['init', 'claude-code'], s.env, s.project);
    expect(plain.stdout).toContain('add .session-state-kit/ to .gitignore (or run init again with --gitignore)');
    writeFileSync(join(s.project, '.gitignore'), 'node_modules/\n*.log');
    expect((await run(cli.path(), ['init', 'claude-code', '--gitignore'], s.env, s.project)).code).toBe(0);
    expect(readFileSync(join(s.project, '.gitignore'), 'utf8')).toBe('node_modules/\n*.log\n.session-state-kit/\n');
    const again = await run(cli.path(), ['init', 'claude-code', '--gitignore'], s.env, s.project);
    expect(again.stdout).not.toContain('.gitignore');
    expect(readFileSync(join(s.project, '.gitignore'), 'utf8')).toBe('node_modules/\n*.log\n.session-state-kit/\n');
    // A database elsewhere is not the project's business.
    const elsewhere = sandbox();
    expect((await run(cli.path(), ['init', 'claude-code', '--db', elsewhere.db], elsewhere.env, elsewhere.project)).stdout).not.toContain('.gitignore');
  });
});
