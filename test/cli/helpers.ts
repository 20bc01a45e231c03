import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { bundleCli as bundleCliAs } from '../../scripts/cli-build.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Bundles the CLI into `outdir/cli.mjs` (with `hook-program.mjs` beside it, and the OpenCode plugin
 * module as `opencode.mjs`) the way dist/cli.js is built (scripts/cli-build.ts), the MCP SDK left
 * out. Its external packages resolve from wherever `outdir` sits: under the repository they are
 * found, elsewhere they are "not installed".
 */
export async function bundleCli(outdir: string): Promise<{ hookProgramInputs: string[] }> {
  // The OpenCode plugin module beside the CLI, as dist/opencode.js is beside dist/cli.js (init names it, T63).
  return await bundleCliAs(root, outdir, { extension: '.mjs', extraEntries: { opencode: 'src/integrations/opencode/index.ts' } });
}

/**
 * The CLI as users run it, bundled once per test file (bundleCli) and run with plain `node` in a
 * child process. The bundle sits under node_modules/.cache so its external packages resolve from
 * the repository's node_modules, named by its real path: Node runs a script by its real path, so
 * the entries `init` writes name it so, and a node_modules that is a symlink (a git worktree's, a
 * linked install) would otherwise give the tests another spelling of the same file.
 */
export function useBuiltCli(): { path: () => string; dir: () => string } {
  let outdir = '';
  beforeAll(async () => {
    outdir = join(realpathSync(join(root, 'node_modules')), '.cache', 'ssk-cli-tests', `cli-${process.pid}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(outdir, { recursive: true });
    // By its real path, the one init writes (T50), also where node_modules is a symlink (a worktree's).
    outdir = realpathSync(outdir);
    await bundleCli(outdir);
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  return { path: () => join(outdir, 'cli.mjs'), dir: () => outdir };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion; async so independent runs in one test (or concurrent tests) overlap. */
export function runCli(cli: string, args: readonly string[], options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: options.cwd ?? root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Parses an aligned table: header names, then each row split on runs of 2+ spaces. */
export function parseTable(stdout: string): { header: string[]; rows: string[][] } {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const split = (l: string) => l.trim().split(/ {2,}/);
  const [head, ...rest] = lines;
  return { header: head ? split(head) : [], rows: rest.map(split) };
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ssk-cli-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Content hash and mtime: "never writes" means both stay put. */
export function fingerprint(path: string): { sha256: string; mtimeMs: number; size: number } {
  const st = statSync(path);
  return { sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), mtimeMs: st.mtimeMs, size: st.size };
}

/** Runs one shell command line from the repository root, as a person would type it there. */
export function runShell(line: string, options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { cwd: options.cwd ?? root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * T45-T47: the CLI as a user with only `env` (HOME, CODEX_HOME, ...) and PATH, in `cwd`, as `init`
 * and `doctor` see a throwaway project and home. `nodeArgs` go before the script (e.g. a heap cap).
 */
export function runAsUser(cli: string, args: readonly string[], env: Record<string, string>, cwd: string, options: { nodeArgs?: readonly string[]; input?: string } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), cli, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NO_COLOR: '1', ...env }, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}
