import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_CLIS, INIT_HOOK_EVENTS, codexRecordedTrust, codexTrustFor, handlerPlace, hookHandlers, hookShape, MCP_SERVER_NAME, mcpServerEntry, mcpServerName, opencodeMcpCommand, parseOpencodePluginText, qwenApproval, qwenMcpApprovalHash, readJsonConfig, readTomlConfig, type AgentCli } from './agent-config.js';
import { parseCommand, wantsHelp } from './args.js';
import { databasePathProblem, readText } from './config-files.js';
import { INIT_USAGE, KIT_MENTION, codexHome, copilotHome, qwenProjectRoot, target, type Target } from './init.js';
import { EXIT, UsageError, type ExitCode, type Io } from './io.js';
import { kitLauncher, kitPluginModule, parseKitHookCommand, parseKitMcpEntry, sameLauncher, type KitCommand } from './kit-command.js';
import { messageOf } from '../shared/logger.js';

/** One line of doctor's report. */
export interface DoctorLine {
  cli: AgentCli;
  what: string;
  ok: boolean;
  detail: string;
}

/** The payload doctor starts a hook with: every runtime's hook ignores it (exit 0, nothing opened, nothing recorded). */
const PROBE = JSON.stringify({ hook_event_name: 'Doctor', session_id: 'doctor' });

function errorText(error: unknown): string {
  return messageOf(error);
}

/** T47: whether Codex reads a project's `.codex/`: only in a folder its user config marks trusted. */
function codexProjectTrusted(dir: string): boolean | string {
  let config: Record<string, unknown>;
  try {
    config = readTomlConfig(`${codexHome()}/config.toml`, readText(`${codexHome()}/config.toml`));
  } catch (error) {
    return errorText(error);
  }
  const projects = (config['projects'] ?? {}) as Record<string, { trust_level?: unknown } | undefined>;
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // A folder that is gone is simply not trusted.
  }
  return [dir, real].some((d) => Object.hasOwn(projects, d) && projects[d]?.trust_level === 'trusted');
}

/**
 * T55: whether Copilot reads a project's `.github/hooks` and workspace MCP file: only in a folder
 * its config.json lists under `trustedFolders` (the folder or one above it; checked with the real
 * binary, which ignores the same list in settings.json).
 */
function copilotFolderTrusted(dir: string): boolean | string {
  const path = `${copilotHome()}/config.json`;
  let folders: unknown;
  try {
    folders = readJsonConfig(path, readText(path), { comments: true })['trustedFolders'];
  } catch (error) {
    return errorText(error);
  }
  if (!Array.isArray(folders)) return false;
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // A folder that is gone is simply not trusted.
  }
  const within = (d: string, f: string) => d === f || d.startsWith(f.endsWith('/') ? f : `${f}/`);
  return folders.some((f) => typeof f === 'string' && f !== '' && [dir, real].some((d) => within(d, f)));
}

/** T47: the MCP entry init registers in one target, parsed, if there is one. */
function mcpLine(t: Target, own: readonly string[]): DoctorLine | undefined {
  const name = mcpServerName(t.cli);
  const what = `${t.scope} MCP server`;
  const entryIn = (path: string) => {
    const config = t.cli === 'codex' ? readTomlConfig(path, readText(path)) : readJsonConfig(path, readText(path), t.flavor);
    // T64: OpenCode's table is `mcp`, its entry's command one array.
    if (t.cli === 'opencode') {
      const entry = (config['mcp'] as Record<string, unknown> | undefined)?.[name];
      return entry === undefined ? undefined : opencodeMcpCommand(entry) ?? entry;
    }
    const servers = (t.cli === 'codex' ? config['mcp_servers'] : config['mcpServers']) as Record<string, unknown> | undefined;
    return servers?.[name];
  };
  let entry: unknown;
  try {
    entry = entryIn(t.mcpPath);
    // T55: an entry in a file Copilot does not read while the other exists is never started.
    const stale = entry === undefined ? (t.staleMcpPaths ?? []).find((p) => entryIn(p) !== undefined) : undefined;
    if (stale !== undefined) return { cli: t.cli, what, ok: false, detail: `${stale}: Copilot does not read it while ${t.mcpPath} exists, so the "${name}" entry there never starts: run init ${t.cli} again to move it` };
  } catch (error) {
    return { cli: t.cli, what, ok: false, detail: errorText(error) };
  }
  if (entry === undefined) return undefined;
  const kit = parseKitMcpEntry(entry);
  if (kit === undefined) return { cli: t.cli, what, ok: false, detail: `${t.mcpPath}: the "${name}" entry is not a command init writes (not run)` };
  if (kit.form === 'npx') return { cli: t.cli, what, ok: false, detail: `${t.mcpPath}: runs "npx session-state-kit", resolved by name from the registry when the CLI starts it: run init again to pin it to this copy` };
  if (!sameLauncher(kit.launcher, own)) return { cli: t.cli, what, ok: false, detail: `${t.mcpPath}: runs another copy of the kit (${kit.launcher.join(' ')}): run init again from the copy you use` };
  return { cli: t.cli, what, ok: true, detail: `${t.mcpPath}: pinned to this copy of the kit` };
}

/** T58: whether Qwen Code will start the project's MCP entry: approved for this folder, for exactly this entry. */
function qwenApprovalLine(t: Target): DoctorLine | undefined {
  const what = 'project MCP approved';
  try {
    const entry = mcpServerEntry(t.mcpPath, readText(t.mcpPath), t.flavor);
    if (entry === undefined) return undefined;
    const root = qwenProjectRoot(t.dir);
    const record = qwenApproval(t.approvalsPath!, readText(t.approvalsPath!), root);
    if (record?.hash === qwenMcpApprovalHash(entry) && record.status === 'approved') return { cli: t.cli, what, ok: true, detail: `${t.approvalsPath}: approved for ${root}` };
    const state = record === undefined ? 'not approved' : record.hash !== qwenMcpApprovalHash(entry) ? 'approved for another version of the entry' : record.status;
    return { cli: t.cli, what, ok: false, detail: `${state} for ${root}: Qwen Code does not start it (and says nothing in a -p run); run init qwen again, or "qwen mcp approve ${MCP_SERVER_NAME}" there` };
  } catch (error) {
    return { cli: t.cli, what, ok: false, detail: errorText(error) };
  }
}

/** T58: a project's .mcp.json naming the kit's server hides Qwen Code's user entry of that name in this folder. */
function qwenShadowLine(dir: string): DoctorLine | undefined {
  const path = `${dir}/.mcp.json`;
  try {
    if (mcpServerEntry(path, readText(path), { comments: true }) === undefined) return undefined;
  } catch {
    return undefined;
  }
  return { cli: 'qwen', what: 'user MCP server used', ok: false, detail: `${path} names a "${MCP_SERVER_NAME}" server too, and in ${dir} Qwen Code runs that one instead: run init qwen (project) there` };
}

/**
 * T63: loads exactly this kit's plugin module, as OpenCode would, in a Node of its own (argv, no
 * shell, in `dir`): the module must export sessionStatePlugin and the plugin take the file's
 * database. Nothing is opened or recorded (the plugin opens its store at the first event).
 */
function probePlugin(launcher: readonly string[], module: string, db: string, dir: string): { ok: boolean; detail: string } {
  const script = [
    `const m = await import(${JSON.stringify(module)});`,
    `if (typeof m.sessionStatePlugin !== 'function') { console.error('the module exports no sessionStatePlugin'); process.exit(3); }`,
    'const said = [];',
    `const hooks = await m.sessionStatePlugin({ db: ${JSON.stringify(db)} })({ client: { app: { log: ({ body }) => said.push(body.message) } } });`,
    `if (said.length > 0) { console.error(said[0]); process.exit(4); }`,
    `console.log(Object.keys(hooks).join(' '));`,
  ].join('\n');
  const probe = spawnSync(launcher[0]!, [...launcher.slice(1, -1), '--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 0 && /\bchat\.message\b/.test(probe.stdout)) return { ok: true, detail: `the plugin module loads and takes its database (in ${dir})` };
  const said = (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`).trim().split('\n');
  return { ok: false, detail: `the plugin failed to load: ${(said.find((l) => /\b(Error|error|not|no)\b/.test(l)) ?? said[0])?.trim()}` };
}

/**
 * T63: OpenCode's plugin file in one scope: whether it is init's, for which database, pinned to
 * this copy of the kit, and whether it loads. Only a file init wrote that imports exactly this
 * copy's module is loaded; any other is reported, never run.
 */
function opencodeLines(t: Target, launcher: readonly string[]): DoctorLine[] {
  const lines: DoctorLine[] = [];
  const line = (what: string, ok: boolean, detail: string) => lines.push({ cli: t.cli, what: `${t.scope} ${what}`, ok, detail });
  let text: string | undefined;
  try {
    text = readText(t.hooksPath);
  } catch (error) {
    line('plugin', false, errorText(error));
    return lines;
  }
  const mcp = mcpLine(t, launcher);
  const plugin = parseOpencodePluginText(text);
  if (text === undefined && mcp === undefined) return lines;
  if (text !== undefined && plugin === undefined) line('plugin not run', false, `${t.hooksPath}: not a plugin file init writes (changed, or someone else's); doctor does not load it`);
  if (text === undefined) line('plugin installed', false, `${t.hooksPath}: none (run init opencode${t.scope === 'user' ? ' --user' : ''})`);
  if (plugin !== undefined) {
    line('plugin installed', true, `${t.hooksPath}: for ${plugin.db}`);
    const problem = databasePathProblem(plugin.db);
    line('database', problem === undefined, problem === undefined ? plugin.db : `${plugin.db} can never be opened: ${problem}`);
    let own: string | undefined;
    try {
      own = kitPluginModule(launcher);
    } catch {
      own = undefined;
    }
    let file: string | undefined;
    try {
      file = plugin.module.startsWith('file:') ? fileURLToPath(plugin.module) : undefined;
    } catch {
      file = undefined;
    }
    if (own !== undefined && plugin.module === own) {
      line('plugin pinned', true, 'the plugin imports this copy of the kit by absolute path');
      const r = probePlugin(launcher, own, plugin.db, t.dir);
      line('plugin loads', r.ok, r.detail);
    } else if (file === undefined) line('plugin pinned', false, `the plugin imports ${plugin.module}, not a file by absolute path: run init opencode again`);
    else if (!existsSync(file)) line('plugin pinned', false, `the plugin imports ${file}, which no longer exists (the kit moved): run init opencode again`);
    else line('plugin pinned', false, `the plugin imports another copy of the kit (${file}), which doctor does not load: run init opencode again from the copy you use, or doctor from that copy`);
  }
  if (mcp !== undefined) lines.push(mcp);
  return lines;
}

/** Starts exactly the kit's own hook command, as argv (no shell), in `dir`, with the probe payload. */
function probeHook(kit: KitCommand, dir: string): { ok: boolean; detail: string } {
  const [command, ...args] = [...kit.launcher, 'hook', kit.cli, '--db', kit.db];
  const probe = spawnSync(command!, args, { cwd: dir, input: PROBE, encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 0 && /ignored hook event "Doctor"/.test(probe.stderr)) return { ok: true, detail: `the installed command starts and answers (in ${dir})` };
  // The line that says why (Node prints a source location first), else the first line.
  const said = (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`).trim().split('\n');
  const why = said.find((l) => /\b(Error|error|not found|denied)\b/.test(l)) ?? said[0];
  return { ok: false, detail: `the installed command failed: ${why?.trim()}` };
}

/**
 * T47: for every CLI and both scopes, whether the hooks init writes are installed, trusted
 * (Codex: each handler and, for a project, the project), pinned to this copy of the kit, able to
 * open their database, and able to run. Only a command that is exactly this kit's own is ever
 * started (argv, no shell, in `dir`); any other command in those files is reported, never run.
 */
export function doctor(dir: string, launcher: readonly string[] = kitLauncher()): DoctorLine[] {
  const lines: DoctorLine[] = [];
  for (const cli of AGENT_CLIS) {
    for (const scope of ['project', 'user'] as const) {
      const t = target(cli, scope, dir, undefined);
      // T63: OpenCode has a plugin file where the others have hooks.
      if (cli === 'opencode') {
        lines.push(...opencodeLines(t, launcher));
        continue;
      }
      const line = (what: string, ok: boolean, detail: string) => lines.push({ cli, what: `${scope} ${what}`, ok, detail });
      let settings: Record<string, unknown>;
      try {
        settings = readJsonConfig(t.hooksPath, readText(t.hooksPath), t.flavor);
      } catch (error) {
        line('hooks', false, errorText(error));
        continue;
      }
      // Every event, not only init's: a lookalike may sit under any of them.
      const handlers = hookHandlers(settings as never, undefined, hookShape(cli));
      const kits = handlers.map((h) => ({ h, kit: parseKitHookCommand(h.command) })).filter((x) => x.kit?.cli === cli);
      const foreign = handlers.filter((h) => typeof h.command === 'string' && KIT_MENTION.test(h.command) && parseKitHookCommand(h.command) === undefined);
      const mcp = mcpLine(t, launcher);
      if (kits.length === 0 && foreign.length === 0 && mcp === undefined) continue;
      for (const h of foreign) line('hook not run', false, `${t.hooksPath}: ${handlerPlace(h)} mentions session-state-kit but is not a command init writes; doctor does not run it`);
      // T55: Copilot reads a project's hooks and workspace MCP file only in a folder it trusts.
      if (cli === 'copilot' && scope === 'project') {
        const ok = copilotFolderTrusted(dir);
        line('folder trusted', ok === true, ok === true ? `Copilot reads ${dir}/.github/hooks and ${t.mcpPath}` : typeof ok === 'string' ? ok : `Copilot does not read ${dir}/.github/hooks or its MCP file in a folder it does not trust: trust it when Copilot asks ("remember this folder"), or run "copilot --trust-folder" there; init never does`);
      }
      const dbs = [...new Set(kits.map((k) => k.kit!.db))];
      if (kits.length === 0) line('hooks installed', false, `${t.hooksPath}: none (run init ${cli}${scope === 'user' ? ' --user' : ''})`);
      for (const db of dbs) {
        const mine = kits.filter((k) => k.kit!.db === db);
        const missing = INIT_HOOK_EVENTS[cli].filter((e) => !mine.some((k) => k.h.event === e));
        line('hooks installed', missing.length === 0, `${t.hooksPath}: ${INIT_HOOK_EVENTS[cli].length - missing.length}/${INIT_HOOK_EVENTS[cli].length}${missing.length ? ` (missing ${missing.join(', ')})` : ''}${dbs.length > 1 ? ` for ${db}` : ''}`);
        const problem = databasePathProblem(db);
        line('database', problem === undefined, problem === undefined ? db : `${db} can never be opened: ${problem}`);
        const npx = mine.filter((k) => k.kit!.form === 'npx');
        const other = mine.filter((k) => k.kit!.form === 'pinned' && !sameLauncher(k.kit!.launcher, launcher));
        if (npx.length > 0) line('hooks pinned', false, `${npx.length} hook(s) run "npx session-state-kit", resolved by name from the registry on every event: run init again to pin them to this copy`);
        else if (other.length > 0) {
          const gone = other[0]!.kit!.launcher.filter((w) => isAbsolute(w) && !existsSync(w));
          line(
            'hooks pinned',
            false,
            gone.length > 0
              ? `${other.length} hook(s) run ${gone.join(' and ')}, which no longer exists (the kit or Node moved): run init again`
              : `${other.length} hook(s) run another copy of the kit (${other[0]!.kit!.launcher.join(' ')}), which doctor does not run: run init again from the copy you use, or doctor from that copy`,
          );
        }
        else line('hooks pinned', true, 'every hook runs this copy of the kit by absolute path');
        if (cli === 'codex') {
          let recorded = new Map<string, string>();
          try {
            recorded = codexRecordedTrust(readTomlConfig(t.trustPath!, readText(t.trustPath!)));
          } catch (error) {
            line('hooks trusted', false, errorText(error));
          }
          const wanted = codexTrustFor(t.hooksPath, settings as never, (c) => mine.some((k) => k.h.command === c));
          const trusted = wanted.filter((o) => recorded.get(o.key) === o.hash).length;
          const stale = wanted.filter((o) => recorded.has(o.key) && recorded.get(o.key) !== o.hash).length;
          line('hooks trusted', trusted === wanted.length, `${trusted}/${wanted.length} trusted${stale ? `, ${stale} changed since trusted (renew: init codex --trust)` : ''}${trusted < wanted.length && !stale ? ' (Codex skips untrusted hooks silently: init codex --trust, or /hooks in Codex)' : ''}`);
          if (scope === 'project') {
            const ok = codexProjectTrusted(dir);
            line('project trusted', ok === true, ok === true ? `Codex reads ${dir}/.codex` : typeof ok === 'string' ? ok : `Codex does not read ${dir}/.codex in an untrusted project: trust it when Codex asks, or run "codex --trust" there once`);
          }
        }
        const runnable = mine.find((k) => k.kit!.form === 'pinned' && sameLauncher(k.kit!.launcher, launcher));
        if (runnable !== undefined) {
          const r = probeHook(runnable.kit!, dir);
          line('hook runs', r.ok, r.detail);
        }
      }
      if (mcp !== undefined) lines.push(mcp);
      if (cli === 'qwen' && mcp !== undefined) {
        const extra = scope === 'project' ? qwenApprovalLine(t) : qwenShadowLine(dir);
        if (extra !== undefined) lines.push(extra);
      }
    }
  }
  return lines;
}

export const DOCTOR_USAGE = INIT_USAGE;

/** `session-state-kit doctor [--dir <path>]`: exit 0 when everything installed is trusted, pinned and runs, 1 otherwise. */
export async function doctorCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) return (io.out(DOCTOR_USAGE), EXIT.ok);
  const { values, positionals } = parseCommand(argv, { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'doctor');
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, ['see: session-state-kit doctor --help']);
  const lines = doctor(resolve(values.dir ?? process.cwd()));
  if (lines.length === 0) {
    io.out('no session-state-kit hooks installed for Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI or OpenCode here or for this user: see session-state-kit init --help');
    return EXIT.failure;
  }
  for (const l of lines) io.out(`${l.ok ? 'ok  ' : 'FAIL'}  ${l.cli.padEnd(11)} ${l.what.padEnd(24)} ${l.detail}`);
  return lines.every((l) => l.ok) ? EXIT.ok : EXIT.failure;
}
