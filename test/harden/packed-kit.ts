/**
 * The packed kit as a user installs it: one build and one `npm pack` per test run, shared by the
 * test files that install it (the package checks, the walk-through with the real agent CLIs).
 * Two files building dist/ at once would write over each other, so the first to come builds under
 * a lock directory and the others wait for its tarballs. The kit's own dependencies are packed from
 * this checkout's node_modules, so an install needs no registry.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cache = join(root, 'node_modules', '.cache', 'ssk-packed');

export function run(cmd: string, args: readonly string[], options: SpawnSyncOptions = {}): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 600_000, ...options, env: { ...process.env, NO_COLOR: '1', ...(options.env ?? {}) } });
  return { status: r.status, out: `${String(r.stdout ?? '')}${String(r.stderr ?? '')}` };
}

export function must(cmd: string, args: readonly string[], options: SpawnSyncOptions = {}): string {
  const r = run(cmd, args, options);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.out}`);
  return r.out;
}

/** The kit's dependencies and theirs, by name, as installed in this checkout. */
export function dependencyClosure(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !existsSync(join(root, 'node_modules', name, 'package.json'))) return;
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep);
  };
  for (const name of names) visit(name);
  return [...seen];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The tarballs of this run (the kit first), built once per vitest run: the run is the vitest
 * process that started this worker, whose pid names the directory.
 */
export function packedKit(): string[] {
  const runId = process.ppid;
  const dir = join(cache, `run-${runId}`);
  const done = join(dir, 'tarballs.json');
  const lock = join(cache, 'lock');
  mkdirSync(cache, { recursive: true });
  // Directories of runs that ended are left by a killed run; they go.
  for (const d of readdirSync(cache)) {
    const pid = /^run-(\d+)$/.exec(d)?.[1];
    if (pid !== undefined && Number(pid) !== runId && !alive(Number(pid))) rmSync(join(cache, d), { recursive: true, force: true });
  }
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as string[];
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed build (older than the longest build) is taken over.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // It went meanwhile.
      }
      if (Date.now() > deadline) throw new Error(`packedKit: waited 20 minutes for another test file's build (${lock})`);
      spawnSync('sleep', ['1']);
    }
  }
  try {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as string[];
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    must(process.execPath, [join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js')], { cwd: root });
    // dist/ is built: --ignore-scripts skips prepack's second build.
    const kit = JSON.parse(must('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root })) as { filename: string }[];
    const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of dependencyClosure(Object.keys(dependencies))) must('npm', ['pack', '--ignore-scripts', join(root, 'node_modules', dep), '--pack-destination', dir], { cwd: dir });
    const first = join(dir, kit[0]!.filename);
    const tarballs = [first, ...readdirSync(dir).filter((f) => f.endsWith('.tgz')).map((f) => join(dir, f)).filter((f) => f !== first)];
    writeFileSync(done, JSON.stringify(tarballs));
    return tarballs;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A blank project (`package.json` only) with the packed kit installed, offline and without install
 * scripts. `npm` may be run by another Node (`node`, with npm's own script).
 */
export function installKit(project: string, tarballs: readonly string[], node?: string): void {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'blank', private: true, type: 'module' }));
  const npm = node === undefined ? ['npm'] : [node, npmCli()];
  must(npm[0]!, [...npm.slice(1), 'install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...tarballs], { cwd: project });
}

/** npm's own CLI script, for running it under another Node. */
export function npmCli(): string {
  const npmRoot = must('npm', ['root', '-g']).trim();
  return join(npmRoot, 'npm', 'bin', 'npm-cli.js');
}

/**
 * Puts this checkout's copy of a package in the project in place of the installed one: installed
 * with --ignore-scripts (offline: no prebuilt download, no compiler run), better-sqlite3's native
 * addon is not built, and this checkout's built copy stands in for what `npm install` builds.
 */
export function linkFromCheckout(project: string, name: string): void {
  const link = join(project, 'node_modules', name);
  rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), link, 'dir');
}
