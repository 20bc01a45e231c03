import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { initCommand, userHome } from '../../src/cli/init.js';
import { shellJoin } from '../../src/cli/shell-words.js';

/**
 * `init` in this process (the tests beside it run the built CLI as a process, which a mutant in
 * Stryker's sandbox does not reach): a throwaway home and project per test, the CLIs' own folder
 * variables cleared, and `process.argv[1]` naming the kit's source entry, so init pins the hooks
 * to this Node and that script as it does when run from source (T50).
 */
export const MAIN = realpathSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts'));
const ENV = ['HOME', 'CODEX_HOME', 'QWEN_HOME', 'QWEN_CODE_MCP_APPROVALS_PATH', 'COPILOT_HOME', 'XDG_CONFIG_HOME'] as const;

export interface InitPlace {
  root: string;
  home: string;
  project: string;
}

/** A fresh home and project for each test of the calling file; everything put back after it. */
export function useInitPlace(): InitPlace {
  const place = { root: '', home: '', project: '' };
  let saved: { env: Record<string, string | undefined>; argv1: string | undefined } | undefined;
  beforeEach(() => {
    place.root = realpathSync(mkdtempSync(join(tmpdir(), 'ssk-init-')));
    place.home = join(place.root, 'home');
    place.project = join(place.root, 'project');
    mkdirSync(place.home);
    mkdirSync(place.project);
    saved = { env: Object.fromEntries(ENV.map((k) => [k, process.env[k]])), argv1: process.argv[1] };
    for (const k of ENV) delete process.env[k];
    process.env['HOME'] = place.home;
    process.argv[1] = MAIN;
    // Never the real home: a worker thread's HOME does not reach os.homedir(), only init's userHome().
    if (userHome() !== place.home) throw new Error(`init would use ${userHome()} as the home folder, not the test's ${place.home}`);
  });
  afterEach(() => {
    for (const k of ENV) {
      const v = saved!.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.argv[1] = saved!.argv1!;
    rmSync(place.root, { recursive: true, force: true });
  });
  return place;
}

/** The words that start this kit, as init pins them from source: this Node, its loader flags, the entry script. */
export const launcher = (): string[] => [process.execPath, ...process.execArgv, MAIN];
/** The hook command init writes for a CLI and database. */
export const hookLine = (cli: string, db: string): string => shellJoin([...launcher(), 'hook', cli, '--db', db]);

export interface InitRun {
  code: number;
  out: string[];
  notes: string[];
}

/** Runs `init` with these arguments; its output lines, and the notes among them without their prefix. */
export async function init(...argv: string[]): Promise<InitRun> {
  const out: string[] = [];
  const code = await initCommand(argv, { out: (line) => out.push(line), err: () => {} });
  return { code, out, notes: out.filter((l) => l.startsWith('note: ')).map((l) => l.slice('note: '.length)) };
}

export const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Every file under a folder, relative, sorted (what a run left behind). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, prefix: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else out.push(`${prefix}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}
