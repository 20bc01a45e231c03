import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  ConfigFileError,
  INIT_HOOK_EVENTS,
  codexOwnTrust,
  codexRecordedTrust,
  codexSnakeEvent,
  editClaudeMcp,
  editCodexToml,
  editHookSettings,
  editJsonText,
  isOwnHookCommand,
  readJsonConfig,
  readTomlConfig,
  type AgentCli,
} from './agent-config.js';
import { parseCommand, wantsHelp } from './args.js';
import { CliError, EXIT, EXIT_CODES_HELP, UsageError, type ExitCode, type Io } from './io.js';

export const INIT_USAGE = `session-state-kit init claude-code|codex|gemini [--project | --user] [--dir <path>] [--db <file>] [--trust] [--dry-run] [--uninstall]
session-state-kit doctor [--dir <path>]

init writes the hook and MCP server entries a CLI needs to take part (PROTOCOL.md T45-T47), merged
into the files that CLI reads; every other entry, key order and TOML comment stays as it was. A
second run changes nothing. Each file it changes is first copied to <file>.<time>.bak.

  claude-code   --project: <dir>/.claude/settings.json (hooks) and <dir>/.mcp.json (MCP server)
                --user:    ~/.claude/settings.json and ~/.claude.json
  codex         --project: <dir>/.codex/hooks.json and <dir>/.codex/config.toml
                --user:    $CODEX_HOME/hooks.json and $CODEX_HOME/config.toml (CODEX_HOME: ~/.codex)
  gemini        --project: <dir>/.gemini/settings.json (hooks and MCP server); --user: ~/.gemini/settings.json

  --project      (default) the project in --dir (default: the current directory)
  --user         the user's own files, for every project
  --db <file>    the shared state database (default <dir>/.session-state-kit/state.db, or
                 ~/.session-state-kit/state.db with --user); both CLIs must name the same file
  --trust        codex: also record in $CODEX_HOME/config.toml that you trust exactly the
                 handlers init wrote (Codex runs no untrusted hook, and says nothing about it);
                 never done without this flag
  --dry-run      print what would change, as a diff, and write nothing
  --uninstall    remove what init wrote (and the trust it recorded)

doctor says, for each CLI, whether each hook is installed, trusted (Codex) and runs.

${EXIT_CODES_HELP}`;

interface Target {
  cli: AgentCli;
  scope: 'project' | 'user';
  dir: string;
  hooksPath: string;
  mcpPath: string;
  /** Codex: the user's config.toml, where trust is recorded whatever the scope. */
  trustPath?: string;
  db: string;
}

function codexHome(): string {
  return process.env['CODEX_HOME'] !== undefined && process.env['CODEX_HOME'] !== '' ? resolve(process.env['CODEX_HOME']) : join(homedir(), '.codex');
}

function target(cli: AgentCli, scope: 'project' | 'user', dir: string, db: string | undefined): Target {
  const home = homedir();
  const dbPath = resolve(db ?? (scope === 'user' ? join(home, '.session-state-kit', 'state.db') : join(dir, '.session-state-kit', 'state.db')));
  if (cli === 'gemini') {
    // Gemini keeps hooks and MCP servers in one settings.json.
    const settings = scope === 'user' ? join(home, '.gemini', 'settings.json') : join(dir, '.gemini', 'settings.json');
    return { cli, scope, dir, hooksPath: settings, mcpPath: settings, db: dbPath };
  }
  if (cli === 'claude-code') {
    return scope === 'user'
      ? { cli, scope, dir, hooksPath: join(home, '.claude', 'settings.json'), mcpPath: join(home, '.claude.json'), db: dbPath }
      : { cli, scope, dir, hooksPath: join(dir, '.claude', 'settings.json'), mcpPath: join(dir, '.mcp.json'), db: dbPath };
  }
  const ch = codexHome();
  return scope === 'user'
    ? { cli, scope, dir, hooksPath: join(ch, 'hooks.json'), mcpPath: join(ch, 'config.toml'), trustPath: join(ch, 'config.toml'), db: dbPath }
    : { cli, scope, dir, hooksPath: join(dir, '.codex', 'hooks.json'), mcpPath: join(dir, '.codex', 'config.toml'), trustPath: join(ch, 'config.toml'), db: dbPath };
}

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
/** POSIX shell quoting: both CLIs hand a hook's command to `sh -c`. */
export function shellQuote(word: string): string {
  return SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * How the hooks start this CLI: the same Node and the same built file that runs `init` (absolute
 * paths: a hook runs in whatever directory the agent is in, and must not depend on npx reaching a
 * registry), or `npx session-state-kit` when init runs from source.
 */
export function cliLauncher(): string[] {
  const script = process.argv[1];
  if (script !== undefined && /\.(c|m)?js$/.test(script) && existsSync(script)) return [process.execPath, realpathSync(script)];
  return ['npx', 'session-state-kit'];
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
}

/** T45-T46: every file change one init (or uninstall) makes, computed before anything is written. */
export function planInit(t: Target, options: { uninstall: boolean; trust: boolean; launcher: string[] }): { changes: FileChange[]; notes: string[] } {
  const launcher = options.launcher.map(shellQuote).join(' ');
  const hookCommand = options.uninstall ? undefined : `${launcher} hook ${t.cli} --db ${shellQuote(t.db)}`;
  const mcp = { command: options.launcher[0]!, args: [...options.launcher.slice(1), 'mcp', '--db', t.db, ...(t.cli === 'claude-code' ? ['--claude-code-session'] : [])] };
  const texts = new Map<string, string | undefined>();
  const current = (path: string) => (texts.has(path) ? texts.get(path) : read(path));
  const originals = new Map<string, string | undefined>();
  const set = (path: string, after: string | undefined) => {
    if (!originals.has(path)) originals.set(path, read(path));
    texts.set(path, after);
  };
  const notes: string[] = [];

  const hooksText = current(t.hooksPath);
  const newHooks = editJsonText(t.hooksPath, hooksText, (v) => editHookSettings(v, t.cli, hookCommand));
  set(t.hooksPath, newHooks);
  if (t.cli === 'claude-code' || t.cli === 'gemini') {
    set(t.mcpPath, editJsonText(t.mcpPath, current(t.mcpPath), (v) => editClaudeMcp(v, options.uninstall ? undefined : mcp)));
    if (t.cli === 'gemini' && t.scope === 'project' && !options.uninstall) notes.push(`Gemini CLI reads ${join(t.dir, '.gemini')} only in a folder it trusts; init does not trust the folder for you.`);
  } else {
    set(t.mcpPath, editCodexToml(t.mcpPath, current(t.mcpPath), { mcp: options.uninstall ? null : mcp }));
    const trustPath = t.trustPath!;
    const own = codexOwnTrust(t.hooksPath, readJsonConfig(t.hooksPath, newHooks));
    const recorded = codexRecordedTrust(readTomlConfig(trustPath, current(trustPath)));
    const ownPrefix = (key: string) => key.startsWith(`${t.hooksPath}:`) && !own.some((o) => o.key === key) && wasOwnKey(key, hooksText);
    if (options.uninstall || options.trust) {
      set(trustPath, editCodexToml(trustPath, current(trustPath), { trust: options.uninstall ? [] : own, dropTrust: options.uninstall ? (k) => k.startsWith(`${t.hooksPath}:`) && wasOwnKey(k, hooksText) : ownPrefix }));
    } else {
      const untrusted = own.filter((o) => recorded.get(o.key) !== o.hash);
      const stale = untrusted.filter((o) => recorded.has(o.key));
      if (stale.length > 0) notes.push(`Codex trust is stale for ${stale.length} handler(s) init wrote (the handler changed since it was trusted): renew it with --trust, or review them in Codex with /hooks.`);
      if (untrusted.length > 0 && stale.length < untrusted.length) {
        notes.push(`Codex runs no hook it does not trust, and says nothing when it skips one: trust the ${untrusted.length} handler(s) init wrote with "init codex --trust", or review them in Codex with /hooks.`);
      }
    }
    if (t.scope === 'project' && !options.uninstall) notes.push(`Codex reads ${join(t.dir, '.codex')} only in a project it trusts (it asks on the first run there); init does not trust the project for you.`);
  }
  const changes: FileChange[] = [];
  for (const [path, before] of originals) {
    const after = texts.get(path);
    if (after !== undefined && after !== before) changes.push({ path, before, after });
  }
  return { changes, notes };
}

/** Whether a trust key named a handler init had written in the hooks file as it was before this run. */
function wasOwnKey(key: string, hooksText: string | undefined): boolean {
  const m = /:([a-z_]+):(\d+):(\d+)$/.exec(key);
  if (!m || hooksText === undefined) return false;
  try {
    const hooks = (JSON.parse(hooksText) as { hooks?: Record<string, { hooks?: { command?: unknown }[] }[]> }).hooks ?? {};
    const event = Object.keys(hooks).find((e) => codexSnakeEvent(e) === m[1]);
    const handler = event === undefined ? undefined : hooks[event]?.[Number(m[2])]?.hooks?.[Number(m[3])];
    return handler !== undefined && isOwnHookCommand(handler.command, 'codex');
  } catch {
    return false;
  }
}

/** A unified-style diff of one file, line by line (small files: a plain LCS). */
export function lineDiff(path: string, before: string | undefined, after: string): string {
  const a = before === undefined ? [] : before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out = [`--- ${before === undefined ? '/dev/null' : path}`, `+++ ${path}`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join('\n');
}

function apply(changes: readonly FileChange[], stamp: string): string[] {
  const written: string[] = [];
  for (const c of changes) {
    mkdirSync(dirname(c.path), { recursive: true });
    if (c.before !== undefined) copyFileSync(c.path, `${c.path}.${stamp}.bak`);
    writeFileSync(c.path, c.after);
    written.push(c.path);
  }
  return written;
}

/** `session-state-kit init ...` */
export async function initCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) return (io.out(INIT_USAGE), EXIT.ok);
  const { values, positionals } = parseCommand(
    argv,
    {
      project: { type: 'boolean' },
      user: { type: 'boolean' },
      dir: { type: 'string' },
      db: { type: 'string' },
      trust: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      uninstall: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'init',
  );
  const [cli, ...extra] = positionals;
  if (cli !== 'claude-code' && cli !== 'codex' && cli !== 'gemini') throw new UsageError(`init needs the CLI to set up: claude-code, codex or gemini${cli === undefined ? '' : ` (got ${JSON.stringify(cli)})`}`, ['see: session-state-kit init --help']);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, ['see: session-state-kit init --help']);
  if (values.project && values.user) throw new UsageError('--project and --user exclude each other', ['see: session-state-kit init --help']);
  if (values.trust && cli !== 'codex') throw new UsageError('--trust is for codex (Claude Code runs the hooks in its settings as they are)', []);
  if (values.trust && values.uninstall) throw new UsageError('--trust and --uninstall exclude each other (uninstall removes the trust init recorded)', []);
  if (values.db !== undefined && (values.db.trim() === '' || values.db === ':memory:')) throw new UsageError(`--db needs a file both CLIs can share, got ${JSON.stringify(values.db)}`, []);
  const dir = resolve(values.dir ?? process.cwd());
  if (!existsSync(dir)) throw new UsageError(`--dir ${dir} does not exist`, []);
  const t = target(cli, values.user ? 'user' : 'project', dir, values.db);
  let plan: ReturnType<typeof planInit>;
  try {
    plan = planInit(t, { uninstall: values.uninstall === true, trust: values.trust === true, launcher: cliLauncher() });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new CliError(EXIT.failure, `${error.message}; nothing was written`, [`fix the file (or move it away) and run init again`]);
    throw error;
  }
  if (values['dry-run']) {
    if (plan.changes.length === 0) io.out('nothing to change: init has already been run with these options');
    for (const c of plan.changes) io.out(lineDiff(c.path, c.before, c.after));
    for (const n of plan.notes) io.out(`note: ${n}`);
    return EXIT.ok;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const written = apply(plan.changes, stamp);
  // T45: the hooks open the database on the first event; SQLite creates the file, not its directory.
  if (!values.uninstall) mkdirSync(dirname(t.db), { recursive: true });
  if (written.length === 0) io.out(`nothing to change: ${cli} is already ${values.uninstall ? 'without' : 'set up with'} session-state-kit here`);
  for (const path of written) io.out(`${values.uninstall ? 'updated' : 'wrote'} ${path}${plan.changes.find((c) => c.path === path)?.before !== undefined ? ` (backup: ${path}.${stamp}.bak)` : ''}`);
  if (!values.uninstall) io.out(`state database: ${t.db}`);
  for (const n of plan.notes) io.out(`note: ${n}`);
  return EXIT.ok;
}

/** One line of doctor's report. */
export interface DoctorLine {
  cli: AgentCli;
  what: string;
  ok: boolean;
  detail: string;
}

/**
 * T47: for both CLIs and both scopes, whether each hook init writes is installed, trusted (Codex)
 * and runs: the installed command is run once with a payload every hook ignores (exit 0, nothing
 * recorded), so a moved Node or package shows up here rather than as silence in the agent.
 */
export function doctor(dir: string): DoctorLine[] {
  const lines: DoctorLine[] = [];
  for (const cli of ['claude-code', 'codex', 'gemini'] as const) {
    for (const scope of ['project', 'user'] as const) {
      const t = target(cli, scope, dir, undefined);
      let settings: ReturnType<typeof readJsonConfig>;
      try {
        settings = readJsonConfig(t.hooksPath, read(t.hooksPath));
      } catch (error) {
        lines.push({ cli, what: `${scope} hooks`, ok: false, detail: error instanceof Error ? error.message : String(error) });
        continue;
      }
      const hooks = (settings['hooks'] ?? {}) as Record<string, { hooks?: { command?: unknown }[] }[]>;
      const commands = INIT_HOOK_EVENTS[cli].map((event) => ({ event, command: (hooks[event] ?? []).flatMap((g) => g.hooks ?? []).find((h) => isOwnHookCommand(h.command, cli))?.command as string | undefined }));
      const installed = commands.filter((c) => c.command !== undefined);
      if (installed.length === 0) continue;
      const missing = commands.filter((c) => c.command === undefined).map((c) => c.event);
      lines.push({ cli, what: `${scope} hooks installed`, ok: missing.length === 0, detail: `${t.hooksPath}: ${installed.length}/${commands.length}${missing.length ? ` (missing ${missing.join(', ')})` : ''}` });
      if (cli === 'codex') {
        const own = codexOwnTrust(t.hooksPath, settings);
        let recorded = new Map<string, string>();
        try {
          recorded = codexRecordedTrust(readTomlConfig(t.trustPath!, read(t.trustPath!)));
        } catch (error) {
          lines.push({ cli, what: `${scope} hooks trusted`, ok: false, detail: error instanceof Error ? error.message : String(error) });
        }
        const trusted = own.filter((o) => recorded.get(o.key) === o.hash).length;
        const stale = own.filter((o) => recorded.has(o.key) && recorded.get(o.key) !== o.hash).length;
        lines.push({
          cli,
          what: `${scope} hooks trusted`,
          ok: trusted === own.length,
          detail: `${trusted}/${own.length} trusted${stale ? `, ${stale} changed since trusted (renew: init codex --trust)` : ''}${trusted < own.length && !stale ? ' (Codex skips untrusted hooks silently: init codex --trust, or /hooks in Codex)' : ''}`,
        });
      }
      const probe = spawnSync('/bin/sh', ['-c', installed[0]!.command!], { input: JSON.stringify({ hook_event_name: 'Doctor', session_id: 'doctor' }), encoding: 'utf8', timeout: 30_000 });
      const runs = probe.status === 0 && /ignored hook event "Doctor"/.test(probe.stderr);
      // The line that says why (Node prints a source location first), else the first line.
      const said = (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`).trim().split('\n');
      const why = said.find((l) => /\b(Error|error|not found|denied)\b/.test(l)) ?? said[0];
      lines.push({ cli, what: `${scope} hook runs`, ok: runs, detail: runs ? 'the installed command starts and answers' : `the installed command failed: ${why?.trim()}` });
    }
  }
  return lines;
}

/** `session-state-kit doctor [--dir <path>]`: exit 0 when everything installed is trusted and runs, 1 otherwise. */
export async function doctorCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) return (io.out(INIT_USAGE), EXIT.ok);
  const { values, positionals } = parseCommand(argv, { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'doctor');
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, ['see: session-state-kit doctor --help']);
  const lines = doctor(resolve(values.dir ?? process.cwd()));
  if (lines.length === 0) {
    io.out('no session-state-kit hooks installed for Claude Code, Codex or Gemini CLI here or for this user: see session-state-kit init --help');
    return EXIT.failure;
  }
  for (const l of lines) io.out(`${l.ok ? 'ok  ' : 'FAIL'}  ${l.cli.padEnd(11)} ${l.what.padEnd(22)} ${l.detail}`);
  return lines.every((l) => l.ok) ? EXIT.ok : EXIT.failure;
}
