import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { shellJoin, splitShellWords } from './shell-words.js';

/**
 * The commands `init` writes into agent CLIs' files and how they are recognised again
 * (PROTOCOL.md T45, T47, T50). A hook or MCP entry runs exactly the kit that wrote it: the Node
 * that ran `init` and the kit's own script, both as absolute paths, never a package name that npx
 * would resolve (and download) at run time. Recognition is by the parsed words, never by a
 * substring, so a person's compound command, an `echo` that mentions the kit, or a kit hook for
 * another database is never taken for one of `init`'s own.
 */

/** A command `init` wrote, as parsed back from a hook entry. */
export interface KitCommand {
  /** The words that start the kit: `[node, …flags, script]`, or `['npx', 'session-state-kit']` (written by earlier versions). */
  launcher: string[];
  /** `pinned` runs a file by absolute path; `npx` resolves the package by name when the hook runs (T50: flagged, replaced). */
  form: 'pinned' | 'npx';
  cli: string;
  db: string;
}

const NODE_NAME = /^(node|nodejs|bun)([0-9][\w.-]*)?$/;
const SCRIPT_NAME = /^(cli\.(c|m)?js|main\.ts)$/;

/**
 * T50: how this process was started, as the words that start it again: the Node executable, the
 * loader flags when it runs from source (tsx), and the real path of its script.
 */
export function kitLauncher(argv1: string | undefined = process.argv[1], execPath = process.execPath, execArgv: readonly string[] = process.execArgv): string[] {
  if (argv1 === undefined || !existsSync(argv1)) throw new Error('cannot tell which file runs session-state-kit (process.argv[1] is missing), so no hook command can name it');
  const script = realpathSync(argv1);
  if (!SCRIPT_NAME.test(basename(script))) throw new Error(`session-state-kit runs from ${script}, not from its CLI (dist/cli.js): run init through the installed command`);
  // From source the loader flags (absolute paths, as tsx passes them) are part of how it starts.
  const flags = script.endsWith('.ts') ? [...execArgv] : [];
  return [execPath, ...flags, script];
}

/** The hook entry's command: `<node> <cli.js> hook <cli> --db <db>`, each word quoted for sh. */
export function kitHookCommand(launcher: readonly string[], cli: string, db: string): string {
  return shellJoin([...launcher, 'hook', cli, '--db', db]);
}

/** Whether words are a launcher the kit writes: absolute Node, then flags, then an absolute kit script; or the old npx form. */
function launcherForm(words: readonly string[]): KitCommand['form'] | undefined {
  if (words.length === 2 && words[0] === 'npx' && words[1] === 'session-state-kit') return 'npx';
  if (words.length < 2) return undefined;
  const node = words[0]!;
  const script = words[words.length - 1]!;
  if (!isAbsolute(node) || !NODE_NAME.test(basename(node))) return undefined;
  if (!isAbsolute(script) || !SCRIPT_NAME.test(basename(script))) return undefined;
  return 'pinned';
}

/** T45: a hook entry's command parsed as one the kit writes (`… hook <cli> --db <db>`), or undefined. */
export function parseKitHookCommand(command: unknown): KitCommand | undefined {
  if (typeof command !== 'string') return undefined;
  const words = splitShellWords(command);
  if (words === undefined || words.length < 6) return undefined;
  const tail = words.slice(-4);
  if (tail[0] !== 'hook' || tail[2] !== '--db' || tail[3] === '') return undefined;
  const launcher = words.slice(0, -4);
  const form = launcherForm(launcher);
  return form === undefined ? undefined : { launcher, form, cli: tail[1]!, db: tail[3]! };
}

/** T45: whether a hook entry is one `init` owns for this CLI and database (exact words; another database's hook is not). */
export function isOwnHook(command: unknown, cli: string, db: string): boolean {
  const parsed = parseKitHookCommand(command);
  return parsed !== undefined && parsed.cli === cli && parsed.db === db;
}

/** Whether two launchers are the same words. */
export function sameLauncher(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** T50: an MCP entry `{command, args}` parsed as the kit's `mcp` command, with its launcher. */
export function parseKitMcpEntry(entry: unknown): { launcher: string[]; form: KitCommand['form'] } | undefined {
  if (entry === null || typeof entry !== 'object') return undefined;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) return undefined;
  const words = [command, ...(args as string[])];
  const at = words.indexOf('mcp');
  if (at < 1) return undefined;
  const launcher = words.slice(0, at);
  const form = launcherForm(launcher);
  return form === undefined ? undefined : { launcher, form };
}

/**
 * T50, T63: the OpenCode plugin module of the kit a launcher starts, as the file URL a plugin file
 * imports: built, `opencode.js` beside `cli.js` (the package's `./opencode` entry; `.mjs` beside a
 * `.mjs` bundle); from source, `src/integrations/opencode/index.ts`, which OpenCode's Bun runs as
 * it is. Throws when this copy has no such file.
 */
export function kitPluginModule(launcher: readonly string[]): string {
  const script = launcher[launcher.length - 1]!;
  const file = basename(script) === 'main.ts' ? join(dirname(script), '..', 'integrations', 'opencode', 'index.ts') : join(dirname(script), `opencode${extname(script)}`);
  if (!isAbsolute(file) || !existsSync(file)) throw new Error(`this copy of session-state-kit has no OpenCode plugin module (${file}): build it (npm run build), or run init from an installed kit`);
  return pathToFileURL(realpathSync(file)).href;
}
