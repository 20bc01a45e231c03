import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, UsageError, type ExitCode, type Io } from './io.js';

/**
 * `session-state-kit bench`: fronts the benchmark runner, bench/run.ts. The runner is a TypeScript
 * script in a checkout of the repository (not in the published package) and runs under tsx, so
 * this command finds the checkout this CLI belongs to and runs `node --import tsx bench/run.ts`
 * with the same arguments, passing its output and exit code through.
 */

const BENCH_EXIT_CODES = `Exit codes:
  0  ok
  1  failure (a --check limit was missed, or the run failed)
  2  usage error, or the benchmark runner is not available`;

export const BENCH_USAGE = `session-state-kit bench [options]

Runs the benchmark runner (bench/run.ts) of the repository checkout this CLI belongs to, with tsx.
The runner is not part of the published package.

${BENCH_EXIT_CODES}`;

interface Runner {
  root: string;
  script: string;
  tsx: string;
}

/** The nearest enclosing session-state-kit checkout with bench/run.ts, and a tsx that can run it. */
function findRunner(): Runner | { missing: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const script = join(dir, 'bench', 'run.ts');
    const pkg = join(dir, 'package.json');
    if (existsSync(script) && existsSync(pkg) && isOurPackage(pkg)) {
      try {
        return { root: dir, script, tsx: createRequire(pkg).resolve('tsx') };
      } catch {
        return { missing: `found ${script}, but tsx (a dev dependency) is not installed there; run npm ci in ${dir}` };
      }
    }
    const up = dirname(dir);
    if (up === dir) return { missing: 'this installation has no benchmark runner (bench/run.ts is only in a checkout of the repository)' };
    dir = up;
  }
}

function isOurPackage(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name === 'session-state-kit';
  } catch {
    return false;
  }
}

export async function benchCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const help = argv.includes('--help') || argv.includes('-h');
  const runner = findRunner();
  if ('missing' in runner) {
    if (help) {
      io.out(`${BENCH_USAGE}\n\n(not available here: ${runner.missing})`);
      return EXIT.ok;
    }
    throw new UsageError(`bench is not available: ${runner.missing}`, ['clone the repository, run npm ci, then: npx tsx bench/run.ts --help']);
  }
  if (help) io.out(`session-state-kit bench: runs ${runner.script}; its options:\n`);
  const child = spawn(process.execPath, ['--import', runner.tsx, runner.script, ...argv], { cwd: runner.root, stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => {
    child.on('error', (error) => {
      io.err(`session-state-kit: could not start the benchmark runner: ${error.message}\n`);
      resolve(EXIT.failure);
    });
    child.on('exit', (status, signal) => resolve(status ?? (signal ? EXIT.failure : EXIT.ok)));
  });
  if (help) io.out(`\n${BENCH_EXIT_CODES}`);
  return code === 0 || code === 1 || code === 2 ? code : EXIT.failure;
}
