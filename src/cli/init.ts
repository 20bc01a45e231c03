import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import {
  ConfigFileError,
  READ_ONLY_TOOLS,
  STRICT_JSON,
  claudeToolRule,
  editAllowedToolsText,
  codexRecordedTrust,
  codexTrustFor,
  editCodexToml,
  editHooksText,
  editMcpText,
  editOpencodeMcpText,
  editQwenApprovalsText,
  handlerPlace,
  hookHandlers,
  hookShape,
  isBareMcpEntry,
  mcpServerEntry,
  mcpServerName,
  opencodePluginText,
  parseOpencodePluginText,
  qwenApproval,
  qwenMcpApprovalHash,
  readJsonConfig,
  readTomlConfig,
  type AgentCli,
  type JsonFlavor,
} from './agent-config.js';
import { parseCommand, shellQuote, wantsHelp } from './args.js';
import { ConfigWriteError, databasePathProblem, readText, realFile, withInitLock, writeChanges, type FileChange } from './config-files.js';
import { CliError, EXIT, EXIT_CODES_HELP, UsageError, type ExitCode, type Io } from './io.js';
import { isOwnHook, kitHookCommand, kitLauncher, kitPluginModule, parseKitHookCommand, parseKitMcpEntry } from './kit-command.js';
import { lineDiff } from '../shared/line-diff.js';
import { VISIBILITIES, type Visibility } from '../tools/scope.js';
import { messageOf } from '../shared/logger.js';

/**
 * T60: the visibility init gives the server of a CLI that names its caller (Claude Code, Qwen Code, Copilot CLI).
 * The sessions on one database are one person's team, peers rather than a spawn tree (a Codex session is never in a Claude Code
 * session's tree), and the first thing a session does with the tools is watch and read a peer.
 */
export const INIT_VISIBILITY: Visibility = 'all';

export const INIT_USAGE = `session-state-kit init claude-code|codex|gemini|qwen|copilot|opencode [--project | --user] [--dir <path>] [--db <file>] [--trust] [--allow-read-tools] [--visibility <scope>] [--gitignore] [--dry-run] [--uninstall]
session-state-kit doctor [--dir <path>]

init writes the hook and MCP server entries a CLI needs to take part (PROTOCOL.md T45-T47, T50),
merged into the files that CLI reads; every other entry, key order, number and comment stays as it
was. A second run changes nothing. Each file it changes is first copied to <file>.<time>.bak.

The entries run exactly this copy of session-state-kit: the Node that runs init and the kit's own
script, by absolute path (never a package name resolved when the hook runs). An entry counts as
init's own only when its command is exactly such a kit command for this CLI and this --db; any
other entry, a kit hook for another database included, is left as it is.

  claude-code   --project: <dir>/.claude/settings.json (hooks) and <dir>/.mcp.json (MCP server)
                --user:    ~/.claude/settings.json and ~/.claude.json
  codex         --project: <dir>/.codex/hooks.json and <dir>/.codex/config.toml
                --user:    $CODEX_HOME/hooks.json and $CODEX_HOME/config.toml (CODEX_HOME: ~/.codex)
  gemini        --project: <dir>/.gemini/settings.json (hooks and MCP server); --user: ~/.gemini/settings.json
  qwen          --project: <dir>/.qwen/settings.json (hooks and MCP server), and the approval of
                exactly that MCP entry for <dir> in ~/.qwen/mcpApprovals.json (Qwen Code starts
                no project server before it is approved, and skips it without a word)
                --user:    $QWEN_HOME/settings.json (QWEN_HOME: ~/.qwen)
  copilot       --project: <dir>/.github/hooks/session-state-kit.json, and the MCP server in the
                           workspace file Copilot reads: <dir>/.mcp.json when there is one, else
                           <dir>/.github/mcp.json (Copilot reads both only in a folder it trusts)
                --user:    $COPILOT_HOME/hooks/session-state-kit.json and $COPILOT_HOME/mcp-config.json
                           (COPILOT_HOME: ~/.copilot)
  opencode      --project: <dir>/.opencode/plugins/session-state-kit.js (a plugin: OpenCode runs no
                           command hooks) and the MCP server in the file "opencode mcp add" writes:
                           <dir>/opencode.json (or the opencode.jsonc, .opencode/opencode.json[c]
                           that exists)
                --user:    ~/.config/opencode/plugins/session-state-kit.js and
                           ~/.config/opencode/opencode.json (or opencode.jsonc; $XDG_CONFIG_HOME)
                The MCP server it registers for OpenCode is not bound to a session (T64).

  --project      (default) the project in --dir (default: the current directory)
  --user         the user's own files, for every project
  --db <file>    the shared state database (default <dir>/.session-state-kit/state.db, or
                 ~/.session-state-kit/state.db with --user); every CLI must name the same file
  --trust        codex: also record in $CODEX_HOME/config.toml that you trust exactly the
                 handlers this run wrote (Codex runs no untrusted hook, and says nothing about it);
                 never done without this flag, never for a handler init did not write
  --allow-read-tools
                 claude-code, codex: let the model call the two tools that only read
                 (session_status, sessions_list) without asking, as a non-interactive run
                 (claude -p, codex exec) needs: Claude Code's permissions.allow names exactly
                 them, Codex's server table approves exactly them; the others still ask
  --visibility <s>
                 claude-code, qwen, copilot: how far each session's MCP server sees (T10, T60): all (the
                 default: every session on this database, which is the team; a session still
                 reads and takes only its own notices, T13), agent, tree or self
  --gitignore    add .session-state-kit/ (where the default database lives) to <dir>/.gitignore:
                 the state of a team's sessions is no part of the repository
  --dry-run      print what would change, as a diff, and write nothing
  --uninstall    remove what init wrote for this --db (and the trust it recorded)

doctor says, for each CLI and scope, whether each hook is installed, trusted (Codex: the handlers
and the project), pinned to this copy of the kit, and runs, and whether its database can open
(Qwen Code: also whether the project's MCP server is approved, and whether a .mcp.json hides it;
Copilot: whether it trusts the folder; OpenCode: whether the plugin file is init's, pinned to this
copy, and loads).
To see that a hook runs, doctor starts it itself, without a shell, only when its command is
exactly this kit's (this Node, this script, "hook <cli> --db <file>"), with a payload every hook
ignores, in --dir: nothing is recorded. Any other command in those files is reported, never run.

${EXIT_CODES_HELP}`;

/** Where one CLI's entries go, for one scope. */
export interface Target {
  cli: AgentCli;
  scope: 'project' | 'user';
  dir: string;
  hooksPath: string;
  mcpPath: string;
  /** Codex: the user's config.toml, where trust is recorded whatever the scope. */
  trustPath?: string;
  /** Qwen Code, project scope: the user's mcpApprovals.json, where a project's MCP server is approved (T58). */
  approvalsPath?: string;
  /** T55: files where an earlier init may have put the MCP entry and the CLI no longer reads it: the entry leaves them. */
  staleMcpPaths?: string[];
  /** T63: OpenCode's config folder (a project's .opencode, the user's ~/.config/opencode), where it also installs its plugin package. */
  configDir?: string;
  db: string;
  /** How the CLI reads its JSON files. */
  flavor: JsonFlavor;
}

/**
 * The user's home folder: $HOME as this thread's environment has it (what os.homedir() reads on
 * POSIX, but from the process's own environment, which a worker thread's changes never reach), so
 * a caller running init in a worker with a sandboxed HOME writes there; else the system's answer.
 */
export function userHome(): string {
  const home = process.env['HOME'];
  return process.platform !== 'win32' && home !== undefined && home !== '' ? home : homedir();
}

export function codexHome(): string {
  return process.env['CODEX_HOME'] !== undefined && process.env['CODEX_HOME'] !== '' ? resolve(process.env['CODEX_HOME']) : join(userHome(), '.codex');
}

/** T58: Qwen Code's own folder: $QWEN_HOME (a leading ~ is the home folder, as Qwen reads it), or ~/.qwen. */
export function qwenHome(): string {
  const env = process.env['QWEN_HOME'];
  if (env === undefined || env === '') return join(userHome(), '.qwen');
  return env === '~' || env.startsWith('~/') ? join(userHome(), env.slice(2)) : resolve(env);
}

/** T58: Qwen Code's record of approved project MCP servers ($QWEN_CODE_MCP_APPROVALS_PATH when set). */
export function qwenApprovalsPath(): string {
  const env = process.env['QWEN_CODE_MCP_APPROVALS_PATH'];
  return env !== undefined && env !== '' ? env : join(qwenHome(), 'mcpApprovals.json');
}

/** T58: the folder Qwen keys a project's approvals by: the folder it runs in, as the system names it (symlinks resolved). */
export function qwenProjectRoot(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** T55: Copilot's own folder (`COPILOT_HOME`, default ~/.copilot): user hooks, MCP servers, folder trust. */
export function copilotHome(): string {
  return process.env['COPILOT_HOME'] !== undefined && process.env['COPILOT_HOME'] !== '' ? resolve(process.env['COPILOT_HOME']) : join(userHome(), '.copilot');
}

/** T63: OpenCode's user config folder: $XDG_CONFIG_HOME/opencode, or ~/.config/opencode. */
export function opencodeConfigHome(): string {
  const xdg = process.env['XDG_CONFIG_HOME'];
  return join(xdg !== undefined && xdg !== '' ? resolve(xdg) : join(userHome(), '.config'), 'opencode');
}

/** T63: the plugin file init writes into an OpenCode config folder. */
export const OPENCODE_PLUGIN_FILE = join('plugins', 'session-state-kit.js');

/**
 * T63: the config file `opencode mcp add` (1.18.33) writes a server into, so the kit's entry sits
 * where the person's own do: the first that exists of `candidates`, else the first.
 */
function firstExisting(candidates: readonly string[]): string {
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

export function defaultDb(scope: 'project' | 'user', dir: string): string {
  return scope === 'user' ? join(userHome(), '.session-state-kit', 'state.db') : join(dir, '.session-state-kit', 'state.db');
}

export function target(cli: AgentCli, scope: 'project' | 'user', dir: string, db: string | undefined): Target {
  const home = userHome();
  const dbPath = resolve(db ?? defaultDb(scope, dir));
  if (cli === 'gemini') {
    // Gemini keeps hooks and MCP servers in one settings.json, and reads comments in it.
    const settings = scope === 'user' ? join(home, '.gemini', 'settings.json') : join(dir, '.gemini', 'settings.json');
    return { cli, scope, dir, hooksPath: settings, mcpPath: settings, db: dbPath, flavor: { comments: true } };
  }
  if (cli === 'qwen') {
    // T58: like Gemini, one settings.json (comments allowed) holds hooks and MCP servers; a project's
    // server runs only once approved in the user's mcpApprovals.json.
    const settings = scope === 'user' ? join(qwenHome(), 'settings.json') : join(dir, '.qwen', 'settings.json');
    return { cli, scope, dir, hooksPath: settings, mcpPath: settings, db: dbPath, flavor: { comments: true }, ...(scope === 'project' ? { approvalsPath: qwenApprovalsPath() } : {}) };
  }
  if (cli === 'copilot') {
    if (scope === 'user') {
      const ch = copilotHome();
      return { cli, scope, dir, hooksPath: join(ch, 'hooks', 'session-state-kit.json'), mcpPath: join(ch, 'mcp-config.json'), db: dbPath, flavor: STRICT_JSON };
    }
    // T55: Copilot reads .github/mcp.json only while there is no .mcp.json (checked with the real binary).
    const [reads, ignores] = existsSync(join(dir, '.mcp.json')) ? ['.mcp.json', join('.github', 'mcp.json')] : [join('.github', 'mcp.json'), '.mcp.json'];
    return { cli, scope, dir, hooksPath: join(dir, '.github', 'hooks', 'session-state-kit.json'), mcpPath: join(dir, reads), staleMcpPaths: [join(dir, ignores)], db: dbPath, flavor: STRICT_JSON };
  }
  if (cli === 'opencode') {
    // T63: a plugin file instead of hooks; OpenCode reads comments and trailing commas in its config files.
    const config = scope === 'user' ? opencodeConfigHome() : join(dir, '.opencode');
    const mcpPath = scope === 'user' ? firstExisting([join(config, 'opencode.json'), join(config, 'opencode.jsonc')]) : firstExisting([join(dir, 'opencode.json'), join(dir, 'opencode.jsonc'), join(config, 'opencode.json'), join(config, 'opencode.jsonc')]);
    return { cli, scope, dir, hooksPath: join(config, OPENCODE_PLUGIN_FILE), mcpPath, configDir: config, db: dbPath, flavor: { comments: true, trailingCommas: true } };
  }
  if (cli === 'claude-code') {
    return scope === 'user'
      ? { cli, scope, dir, hooksPath: join(home, '.claude', 'settings.json'), mcpPath: join(home, '.claude.json'), db: dbPath, flavor: STRICT_JSON }
      : { cli, scope, dir, hooksPath: join(dir, '.claude', 'settings.json'), mcpPath: join(dir, '.mcp.json'), db: dbPath, flavor: STRICT_JSON };
  }
  const ch = codexHome();
  return scope === 'user'
    ? { cli, scope, dir, hooksPath: join(ch, 'hooks.json'), mcpPath: join(ch, 'config.toml'), trustPath: join(ch, 'config.toml'), db: dbPath, flavor: STRICT_JSON }
    : { cli, scope, dir, hooksPath: join(dir, '.codex', 'hooks.json'), mcpPath: join(dir, '.codex', 'config.toml'), trustPath: join(ch, 'config.toml'), db: dbPath, flavor: STRICT_JSON };
}

/**
 * T44, T50, T55, T59, T60: the MCP server entry init registers. Claude Code, Qwen Code and Copilot
 * tell their server the caller, which then sees with the team's visibility; Codex and Gemini CLI do not.
 */
export function mcpEntry(cli: AgentCli, launcher: readonly string[], db: string, visibility: Visibility = INIT_VISIBILITY): { command: string; args: string[] } {
  const binding = cli === 'claude-code' ? ['--claude-code-session'] : cli === 'qwen' || cli === 'copilot' ? ['--caller-session', cli] : [];
  return { command: launcher[0]!, args: [...launcher.slice(1), 'mcp', '--db', db, ...binding, ...(binding.length > 0 ? ['--visibility', visibility] : [])] };
}

/** A command that mentions the kit or one of its hooks: reported when it is not one init writes (T45, T47). */
export const KIT_MENTION = /session-state-kit|\bhook (claude-code|codex|gemini|qwen|copilot)\b/;

/** T63: init will not write where it would overwrite what it does not own; nothing has been written when it is thrown. */
export class InitRefusal extends Error {
  override readonly name = 'InitRefusal';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Files by real path: two names of one file are one text, edited once (T45). */
class FileSet {
  private readonly texts = new Map<string, string | undefined>();
  private readonly originals = new Map<string, { path: string; text: string | undefined }>();
  get(path: string): string | undefined {
    const real = realFile(path);
    if (this.texts.has(real)) return this.texts.get(real);
    const text = readText(real);
    this.originals.set(real, { path, text });
    this.texts.set(real, text);
    return text;
  }
  set(path: string, text: string | undefined): void {
    this.get(path);
    this.texts.set(realFile(path), text);
  }
  changes(): FileChange[] {
    const out: FileChange[] = [];
    for (const [real, { path, text }] of this.originals) {
      const after = this.texts.get(real);
      // Undefined after a text: removed (only a plugin file init wrote is ever removed, T63).
      if (after !== text) out.push({ path, real, before: text, after });
    }
    return out;
  }
}

/** T45-T46: every file change one init (or uninstall) makes, computed before anything is written. */
export function planInit(t: Target, options: { uninstall: boolean; trust: boolean; launcher: readonly string[]; gitignore?: boolean; allowReadTools?: boolean; visibility?: Visibility; pluginModule?: string }): { changes: FileChange[]; notes: string[] } {
  const files = new FileSet();
  const notes: string[] = [];
  if (t.cli === 'opencode') {
    notes.push(...planOpencodeInit(t, files, options));
    notes.push(...commonNotes(t, files, options));
    return { changes: files.changes(), notes };
  }
  const command = kitHookCommand(options.launcher, t.cli, t.db);
  const own = (c: unknown) => isOwnHook(c, t.cli, t.db);

  const shape = hookShape(t.cli);
  const hooksText = files.get(t.hooksPath);
  const before = readJsonConfig(t.hooksPath, hooksText, t.flavor);
  const newHooks = editHooksText(t.hooksPath, hooksText, t.cli, options.uninstall ? undefined : command, own, t.flavor);
  files.set(t.hooksPath, newHooks);
  const after = readJsonConfig(t.hooksPath, newHooks, t.flavor);
  const mcp = options.uninstall ? undefined : mcpEntry(t.cli, options.launcher, t.db, options.visibility);
  if (t.cli === 'claude-code' && (options.allowReadTools || options.uninstall)) {
    // T49: exactly the read-only tools, by their Claude Code names; uninstall takes them back.
    files.set(t.hooksPath, editAllowedToolsText(t.hooksPath, files.get(t.hooksPath), READ_ONLY_TOOLS.map(claudeToolRule), !options.uninstall, t.flavor));
  }
  if (t.cli === 'copilot') {
    const name = mcpServerName(t.cli);
    files.set(t.mcpPath, editMcpText(t.mcpPath, files.get(t.mcpPath), mcp, t.flavor, name));
    // T55: an entry an earlier init wrote where Copilot no longer reads it moves to where it does.
    for (const stale of t.staleMcpPaths ?? []) files.set(stale, editMcpText(stale, files.get(stale), undefined, t.flavor, name));
    if (t.scope === 'project' && !options.uninstall) {
      notes.push(`Copilot reads ${join(t.dir, '.github', 'hooks')} and ${t.mcpPath} only in a folder it trusts (it asks on the first interactive run; "copilot -p" needs --trust-folder); init does not trust the folder for you, and doctor says whether it is.`);
      if (basename(t.mcpPath) === '.mcp.json') notes.push(`${t.mcpPath} is also Claude Code's: it lists the "${name}" server, which starts only under Copilot (it binds to the session Copilot names, T55), and Copilot lists Claude Code's, which starts only under Claude Code.`);
    }
  } else if (t.cli === 'claude-code' || t.cli === 'gemini' || t.cli === 'qwen') {
    const mcpBefore = mcpServerEntry(t.mcpPath, files.get(t.mcpPath), t.flavor);
    files.set(t.mcpPath, editMcpText(t.mcpPath, files.get(t.mcpPath), mcp, t.flavor));
    if (t.cli === 'gemini' && t.scope === 'project' && !options.uninstall) notes.push(`Gemini CLI reads ${join(t.dir, '.gemini')} only in a folder it trusts; init does not trust the folder for you.`);
    if (t.approvalsPath !== undefined) notes.push(...planQwenApproval(t, files, mcpBefore, mcp));
    if (t.cli === 'qwen' && t.scope === 'user' && !options.uninstall) notes.push(...qwenShadowNote(t.dir));
  } else {
    files.set(t.mcpPath, editCodexToml(t.mcpPath, files.get(t.mcpPath), { mcp: mcp ?? null, ...(options.allowReadTools ? { approveTools: READ_ONLY_TOOLS } : {}) }));
    const trustPath = t.trustPath!;
    // T46: exactly the handlers this run wrote: the command, word for word, that it put there.
    const mine = options.uninstall ? [] : codexTrustFor(t.hooksPath, after, (c) => c === command);
    const recorded = codexRecordedTrust(readTomlConfig(trustPath, files.get(trustPath)));
    // Trust init had recorded for one of its own handlers (as the file was) that is no longer where it was.
    const wasOwn = new Set(codexTrustFor(t.hooksPath, before, own).map((o) => o.key));
    const dropTrust = (key: string) => wasOwn.has(key);
    if (options.uninstall || options.trust) {
      files.set(trustPath, editCodexToml(trustPath, files.get(trustPath), { trust: mine, dropTrust }));
    } else {
      const untrusted = mine.filter((o) => recorded.get(o.key) !== o.hash);
      const stale = untrusted.filter((o) => recorded.has(o.key));
      if (stale.length > 0) notes.push(`Codex trust is stale for ${stale.length} handler(s) init wrote (the handler changed since it was trusted): renew it with --trust, or review them in Codex with /hooks.`);
      if (untrusted.length > 0 && stale.length < untrusted.length) {
        notes.push(`Codex runs no hook it does not trust, and says nothing when it skips one: trust the ${untrusted.length} handler(s) init wrote with "init codex --trust", or review them in Codex with /hooks.`);
      }
    }
    if (t.scope === 'project' && !options.uninstall) notes.push(`Codex reads ${join(t.dir, '.codex')} only in a project it trusts (it asks on the first run there, or run "codex --trust" there once); init does not trust the project for you, and doctor says whether it is.`);
  }
  // T45: say what init leaves alone, so a lookalike is never mistaken for an installed hook.
  const lookalikes = hookHandlers(after, undefined, shape).filter((h) => !own(h.command) && typeof h.command === 'string' && KIT_MENTION.test(h.command));
  const otherDbs = [...new Set(lookalikes.map((h) => parseKitHookCommand(h.command)).filter((k) => k?.cli === t.cli).map((k) => k!.db))];
  if (otherDbs.length > 0) notes.push(`${t.hooksPath} also has session-state-kit hooks for ${otherDbs.map((d) => JSON.stringify(d)).join(', ')}; init leaves them as they are (run it with that --db to change them).`);
  const foreign = lookalikes.filter((h) => parseKitHookCommand(h.command) === undefined);
  if (foreign.length > 0) notes.push(`${t.hooksPath} has ${foreign.length} handler(s) that mention session-state-kit but are not a command init writes (${foreign.map(handlerPlace).join(', ')}); init leaves them untouched${t.cli === 'codex' ? ' and never trusts them' : ''}.`);
  if (options.uninstall && hookHandlers(before, undefined, shape).every((h) => !own(h.command)) && otherDbs.length > 0) notes.push(`nothing of init's for --db ${JSON.stringify(t.db)} was found: pass the --db those hooks use to remove them.`);
  notes.push(...commonNotes(t, files, options));
  return { changes: files.changes(), notes };
}

/** What every CLI's init adds at the end: the database's place in .gitignore, and what an unbound server means. */
function commonNotes(t: Target, files: FileSet, options: { uninstall: boolean; gitignore?: boolean }): string[] {
  const notes: string[] = [];
  // The default database lives in the project: say it belongs in .gitignore, or put it there.
  const stateDir = join(t.dir, '.session-state-kit');
  if (!options.uninstall && t.scope === 'project' && t.db.startsWith(`${stateDir}/`)) {
    const ignorePath = join(t.dir, '.gitignore');
    const ignore = files.get(ignorePath);
    const listed = (ignore ?? '').split(/\r?\n/).some((l) => /^\/?\.session-state-kit\/?\s*$/.test(l));
    if (!listed && options.gitignore) files.set(ignorePath, `${ignore ?? ''}${ignore === undefined || ignore === '' || ignore.endsWith('\n') ? '' : '\n'}.session-state-kit/\n`);
    else if (!listed) notes.push(`the state database is in ${stateDir}: add .session-state-kit/ to .gitignore (or run init again with --gitignore), so no one commits the team's session state.`);
  }
  if (!options.uninstall && (t.cli === 'codex' || t.cli === 'gemini')) {
    notes.push(`the MCP server init registers for ${t.cli === 'codex' ? 'Codex' : 'Gemini CLI'} is not bound to a session (the CLI does not tell it who calls): through it a model can read and drain any session's notices, so use it only where every session on this database is yours (T44).`);
  }
  if (!options.uninstall && t.cli === 'opencode') {
    notes.push(`the MCP server init registers for OpenCode is not bound to a session (OpenCode tells it none, and one OpenCode process serves many sessions): through it a model can read and drain any session's notices, so use it only where every session on this database is yours (T64). The plugin knows each session, and tells its model the key to pass.`);
  }
  return notes;
}

/**
 * T63: OpenCode's part of an init: the plugin file (written whole, owned while it reads exactly as
 * init writes it, removed by uninstall) and the MCP entry in the config file `opencode mcp add`
 * writes. Returns the notes to print.
 */
function planOpencodeInit(t: Target, files: FileSet, options: { uninstall: boolean; launcher: readonly string[]; pluginModule?: string }): string[] {
  const notes: string[] = [];
  const text = files.get(t.hooksPath);
  const current = parseOpencodePluginText(text);
  if (options.uninstall) {
    if (current?.db === t.db) files.set(t.hooksPath, undefined);
    else if (current !== undefined) notes.push(`${t.hooksPath} is init's plugin for --db ${JSON.stringify(current.db)}; init leaves it (run init opencode --uninstall with that --db to remove it).`);
    else if (text !== undefined) notes.push(`${t.hooksPath} is not a plugin file init writes (it was changed, or is someone else's); init leaves it.`);
  } else {
    // One plugin file per folder: a person's file, or init's for another database, is never overwritten.
    if (text !== undefined && current === undefined) throw new InitRefusal(`${t.hooksPath} is not a plugin file init writes (it was changed, or is someone else's)`, 'move it away and run init opencode again');
    if (current !== undefined && current.db !== t.db) throw new InitRefusal(`${t.hooksPath} is init's plugin for another database (--db ${JSON.stringify(current.db)})`, `remove it first: session-state-kit init opencode${t.scope === 'user' ? ' --user' : ''} --uninstall --db ${shellQuote(current.db)}`);
    if (options.pluginModule === undefined) throw new InitRefusal('no OpenCode plugin module to name', 'run init from an installed kit');
    files.set(t.hooksPath, opencodePluginText(options.pluginModule, t.db));
  }
  files.set(t.mcpPath, editOpencodeMcpText(t.mcpPath, files.get(t.mcpPath), options.uninstall ? undefined : mcpEntry('opencode', options.launcher, t.db), t.flavor));
  if (!options.uninstall && t.configDir !== undefined && !existsSync(join(t.configDir, 'node_modules'))) {
    notes.push(`OpenCode installs its own plugin package (@opencode-ai/plugin) with npm into ${t.configDir} when it next starts, as into every config folder it reads; the kit's plugin does not use it.`);
  }
  return notes;
}

/**
 * T58: a project's MCP server runs in Qwen Code only once approved, bound to the hash of its
 * entry; Qwen skips a pending one without a word in a `-p` run. init approves exactly the entry it
 * wrote, and only when that entry is nothing but init's command and arguments (an `env` or `cwd`
 * someone left in it would be approved with it); uninstall withdraws only an approval of an entry
 * init wrote. Returns the notes to print.
 */
function planQwenApproval(t: Target, files: FileSet, before: Record<string, unknown> | undefined, mcp: { command: string; args: string[] } | undefined): string[] {
  const path = t.approvalsPath!;
  const root = qwenProjectRoot(t.dir);
  const text = files.get(path);
  if (mcp === undefined) {
    const was = before !== undefined && parseKitMcpEntry(before) !== undefined && isBareMcpEntry(before, { command: String(before['command']), args: before['args'] as string[] }) ? qwenMcpApprovalHash(before) : undefined;
    files.set(path, editQwenApprovalsText(path, text, root, undefined, (h) => h === was));
    return [];
  }
  const entry = mcpServerEntry(t.mcpPath, files.get(t.mcpPath), t.flavor)!;
  if (!isBareMcpEntry(entry, mcp)) {
    const extra = Object.keys(entry).filter((k) => !['command', 'args', 'scope', 'extensionName', 'description'].includes(k));
    return [`the "session-state-kit" server in ${t.mcpPath} also has ${extra.join(', ')}, which init did not write: init does not approve it for Qwen Code; review the entry, then approve it with "qwen mcp approve session-state-kit" in ${t.dir}.`];
  }
  const hash = qwenMcpApprovalHash(entry);
  const current = qwenApproval(path, text, root);
  if (current?.hash === hash && current.status !== 'approved') {
    return [`you ${current.status} the "session-state-kit" server for ${root} in Qwen Code; init leaves that as it is (Qwen will not start it; "qwen mcp approve session-state-kit" changes it).`];
  }
  files.set(path, editQwenApprovalsText(path, text, root, hash, () => false));
  return current?.hash === hash ? [] : [`Qwen Code starts a project's MCP server only once approved: init approved exactly the "session-state-kit" entry it wrote, for ${root}, in ${path} (any change to the entry makes Qwen ask again).`];
}

/**
 * T58: Qwen Code also reads a project's `.mcp.json`, and a server named there hides a user-scope
 * server of the same name: in that project the kit's user entry would not run.
 */
function qwenShadowNote(dir: string): string[] {
  const path = join(dir, '.mcp.json');
  let entry: Record<string, unknown> | undefined;
  try {
    entry = mcpServerEntry(path, readText(path), { comments: true });
  } catch {
    return [];
  }
  return entry === undefined ? [] : [`${path} also names a "session-state-kit" server (Claude Code's, bound to Claude Code's session): in ${dir} Qwen Code runs that entry instead of the one in ${join(qwenHome(), 'settings.json')}; run "init qwen" (project) there, whose entry takes precedence.`];
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
      gitignore: { type: 'boolean' },
      'allow-read-tools': { type: 'boolean' },
      visibility: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'init',
  );
  const [cli, ...extra] = positionals;
  if (cli !== 'claude-code' && cli !== 'codex' && cli !== 'gemini' && cli !== 'qwen' && cli !== 'copilot' && cli !== 'opencode') throw new UsageError(`init needs the CLI to set up: claude-code, codex, gemini, qwen, copilot or opencode${cli === undefined ? '' : ` (got ${JSON.stringify(cli)})`}`, ['see: session-state-kit init --help']);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, ['see: session-state-kit init --help']);
  if (values.project && values.user) throw new UsageError('--project and --user exclude each other', ['see: session-state-kit init --help']);
  if (values.trust && cli === 'copilot') throw new UsageError('--trust is for codex: init never trusts a folder for Copilot (T55)', ['Copilot asks on its first interactive run in the folder; doctor says whether it trusts it']);
  if (values.trust && cli === 'opencode') throw new UsageError('--trust is for codex (OpenCode has no trust step: it loads the plugins in its folders as they are, T63)', []);
  if (values.trust && cli !== 'codex') throw new UsageError('--trust is for codex (Claude Code runs the hooks in its settings as they are)', []);
  if (values['allow-read-tools'] && cli === 'gemini') throw new UsageError('--allow-read-tools is for claude-code and codex (Gemini CLI trusts or confirms a whole MCP server, not one tool: see docs/agents.md)', []);
  if (values['allow-read-tools'] && cli === 'qwen') throw new UsageError('--allow-read-tools is for claude-code and codex (Qwen Code allows a tool per run: qwen -p ... --allowed-tools <tool>; see docs/agents.md)', []);
  if (values['allow-read-tools'] && cli === 'copilot') throw new UsageError('--allow-read-tools is for claude-code and codex (Copilot CLI allows a tool per run: copilot -p ... --allow-tool <tool>; see docs/agents.md)', []);
  if (values['allow-read-tools'] && cli === 'opencode') throw new UsageError('--allow-read-tools is for claude-code and codex (OpenCode runs MCP tools without asking unless its "permission" config says otherwise; see docs/agents.md)', []);
  if (values['allow-read-tools'] && values.uninstall) throw new UsageError('--allow-read-tools and --uninstall exclude each other (uninstall removes the approvals init wrote)', []);
  if (values.visibility !== undefined && (cli === 'codex' || cli === 'gemini' || cli === 'opencode')) throw new UsageError(`--visibility is for claude-code, qwen and copilot (the ${cli} server is not told which session calls it, so it is not bound to one)`, []);
  if (values.visibility !== undefined && !(VISIBILITIES as readonly string[]).includes(values.visibility)) throw new UsageError(`--visibility must be one of ${VISIBILITIES.join(', ')}, got ${JSON.stringify(values.visibility)}`, []);
  if (values.trust && values.uninstall) throw new UsageError('--trust and --uninstall exclude each other (uninstall removes the trust init recorded)', []);
  if (values.db !== undefined && (values.db.trim() === '' || values.db === ':memory:')) throw new UsageError(`--db needs a file both CLIs can share, got ${JSON.stringify(values.db)}`, []);
  const dir = resolve(values.dir ?? process.cwd());
  if (!existsSync(dir)) throw new UsageError(`--dir ${dir} does not exist`, []);
  const t = target(cli, values.user ? 'user' : 'project', dir, values.db);
  if (!values.uninstall) {
    const problem = databasePathProblem(t.db);
    if (problem !== undefined) throw new UsageError(`--db ${t.db} can never be opened by a hook: ${problem}; nothing was written`, ['pass --db with a file path in a folder you can write']);
  }
  let launcher: string[];
  try {
    launcher = kitLauncher();
  } catch (error) {
    throw new CliError(EXIT.failure, `${messageOf(error)}; nothing was written`, []);
  }
  let pluginModule: string | undefined;
  if (cli === 'opencode' && !values.uninstall) {
    try {
      pluginModule = kitPluginModule(launcher);
    } catch (error) {
      throw new CliError(EXIT.failure, `${messageOf(error)}; nothing was written`, []);
    }
  }
  const plan = () => {
    try {
      return planInit(t, { uninstall: values.uninstall === true, trust: values.trust === true, launcher, gitignore: values.gitignore === true, allowReadTools: values['allow-read-tools'] === true, ...(values.visibility !== undefined ? { visibility: values.visibility as Visibility } : {}), ...(pluginModule !== undefined ? { pluginModule } : {}) });
    } catch (error) {
      if (error instanceof ConfigFileError) throw new CliError(EXIT.failure, `${error.message}; nothing was written`, [`fix the file (or move it away) and run init again`]);
      if (error instanceof InitRefusal) throw new CliError(EXIT.failure, `${error.message}; nothing was written`, [error.hint]);
      throw error;
    }
  };
  if (values['dry-run']) {
    const p = plan();
    if (p.changes.length === 0) io.out('nothing to change: init has already been run with these options');
    for (const c of p.changes) io.out(lineDiff(c.path, c.before, c.after));
    for (const n of p.notes) io.out(`note: ${n}`);
    return EXIT.ok;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let done: ReturnType<typeof plan>;
  try {
    // T45: read, plan and write under one lock, so a parallel init never edits a file between our read and our write.
    done = withInitLock(() => {
      const p = plan();
      writeChanges(p.changes, stamp);
      return p;
    });
  } catch (error) {
    if (error instanceof ConfigWriteError) throw new CliError(EXIT.failure, error.message, ['make the file writable (or pick another scope) and run init again']);
    throw error;
  }
  // T45: the hooks open the database on the first event; SQLite creates the file, not its directory.
  if (!values.uninstall) mkdirSync(dirname(t.db), { recursive: true });
  if (done.changes.length === 0) io.out(`nothing to change: ${cli} is already ${values.uninstall ? 'without' : 'set up with'} session-state-kit here`);
  for (const c of done.changes) io.out(`${c.after === undefined ? 'removed' : values.uninstall ? 'updated' : 'wrote'} ${c.path}${c.before !== undefined ? ` (backup: ${c.real}.${stamp}.bak)` : ''}`);
  if (!values.uninstall) io.out(`state database: ${t.db}`);
  for (const n of done.notes) io.out(`note: ${n}`);
  return EXIT.ok;
}

