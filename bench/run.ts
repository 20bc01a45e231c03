/**
 * Benchmarks of the SQLite adapter against the physical limit (raw better-sqlite3 on the same
 * schema and pragmas). `npm run bench` (full), `npm run bench:smoke` (CI: short, with --check).
 * Progress goes to stderr, the table to stdout, everything else to the JSON file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { templateCache, type CaseContext } from './cases/context.js';
import { LIMITS_FOR_CHECK } from './floors.js';
import { GROUPS } from './groups.js';
import { groupSelected, parseArgs, timestampFileName, USAGE, type BenchArgs } from './lib/args.js';
import { openAdapter, Workspace } from './lib/fixtures.js';
import { machineNote } from './lib/machine.js';
import { attachRatios, checkFailed, checkLimits, resultTable, type CaseResult, type CheckOutcome } from './lib/report.js';
import { PLANS } from './plan.js';

const here = dirname(fileURLToPath(import.meta.url));

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (typeof gc !== 'function') throw new Error('could not expose gc');
  return () => {
    gc();
    gc();
  };
}

async function main(args: BenchArgs): Promise<number> {
  const started = new Date();
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
  const progress = (message: string) => process.stderr.write(`[${elapsed()}] ${message}\n`);
  const plan = PLANS[args.mode];
  const machine = machineNote(started);
  const probe = openAdapter(':memory:');
  const adapterDriver = probe.driver;
  probe.close();
  const groups = GROUPS.filter((g) => groupSelected(g.group, args.filter));
  if (groups.length === 0) throw new Error(`--filter ${args.filter} matches no group (${GROUPS.map((g) => g.group).join(', ')})`);
  progress(`${args.mode} run: ${groups.map((g) => g.group).join(', ')} on ${machine.cpuModel} × ${machine.cores}, node ${machine.node}, sqlite ${machine.sqlite}`);

  const ws = new Workspace();
  const raw: CaseResult[] = [];
  const groupSeconds: Record<string, number> = {};
  // A failing group (a sanity check, a storage error) is reported and fails the run, but the
  // other groups still run and their results are still written: a long run is not lost to one case.
  const errors: { group: string; error: string }[] = [];
  try {
    const ctx: CaseContext = { mode: args.mode, plan, ws, progress, eventLog: templateCache(ws, progress), gc: exposeGc() };
    for (const g of groups) {
      const g0 = performance.now();
      try {
        raw.push(...(await g.run(ctx)));
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        errors.push({ group: g.group, error: message });
        progress(`${g.group} FAILED: ${message}`);
      }
      groupSeconds[g.group] = Math.round(performance.now() - g0) / 1000;
      progress(`${g.group} done in ${groupSeconds[g.group]} s`);
    }
  } finally {
    ws.dispose();
  }
  const results = attachRatios(raw);
  const ran = new Set(groups.map((g) => g.group).filter((g) => !errors.some((e) => e.group === g)));
  const checks: CheckOutcome[] = checkLimits(results, LIMITS_FOR_CHECK, (group) => ran.has(group));
  const finished = new Date();

  const jsonPath = args.json ?? join(here, 'results', timestampFileName(started));
  mkdirSync(dirname(jsonPath), { recursive: true });
  const report = {
    command: `tsx bench/run.ts ${process.argv.slice(2).join(' ')}`.trim(),
    mode: args.mode,
    filter: args.filter ?? null,
    machine: { ...machine, loadAverageAtEnd: machineNote(finished).loadAverage },
    adapter: { driver: adapterDriver, synchronous: 'NORMAL', journalMode: 'wal', note: 'default options unless a case says otherwise' },
    startedAt: started.toISOString(),
    durationSeconds: Math.round(performance.now() - t0) / 1000,
    groupSeconds,
    plan,
    results,
    errors,
    checks: checks.map((c) => ({ id: c.limit.id, metric: c.limit.metric, min: c.limit.min, max: c.limit.max, status: c.status, value: c.value })),
  };
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);

  process.stdout.write(`\n${resultTable(results)}\n\n`);
  for (const r of results.filter((x) => x.extra && x.group === 'memory')) {
    const e = r.extra!;
    process.stdout.write(
      `memory: heap slope ${e.heapSlopeBytesPerAppend!.toFixed(2)} B/append, rss slope ${e.rssSlopeBytesPerAppend!.toFixed(2)} B/append ` +
        `(heap ${(e.heapGrowthBytes! / 2 ** 20).toFixed(2)} MiB, rss ${(e.rssGrowthBytes! / 2 ** 20).toFixed(2)} MiB over the run after warm-up)\n`,
    );
  }
  process.stdout.write(`machine: ${machine.cpuModel} × ${machine.cores}, ${machine.platform}, node ${machine.node}, sqlite ${machine.sqlite}, load ${machine.loadAverage.join(' ')}\n`);
  process.stdout.write(`results: ${relative(process.cwd(), jsonPath)} (${report.durationSeconds} s)\n`);

  for (const e of errors) process.stdout.write(`group ${e.group} FAILED (no results): ${e.error.split('\n')[0]}\n`);
  if (!args.check) return errors.length > 0 ? 1 : 0;
  process.stdout.write('\nchecks (bench/floors.ts):\n');
  for (const c of checks) process.stdout.write(`  ${c.status.toUpperCase().padEnd(7)} ${c.message}\n`);
  if (checkFailed(checks) || errors.length > 0) {
    process.stdout.write(
      errors.length > 0
        ? 'bench check FAILED: a group failed to run\n'
        : 'bench check FAILED: a result is outside its limit (see bench/floors.ts for what each one guards)\n',
    );
    return 1;
  }
  process.stdout.write('bench check passed\n');
  return 0;
}

/**
 * Exits with `code` once stdout and stderr are flushed. Explicitly, not by process.exitCode: a
 * group that starts embedded PostgreSQL in this process leaves its exit hook (async-exit-hook),
 * which on beforeExit calls process.exit(0), and a failed --check then exited 0 (seen in CI).
 */
function exitWith(code: number): void {
  process.exitCode = code;
  const flush = (stream: NodeJS.WriteStream, then: () => void) => (stream.writableLength === 0 ? then() : stream.write('', then));
  flush(process.stdout, () => flush(process.stderr, () => process.exit(code)));
}

let args: BenchArgs;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (args.filter !== undefined && (args.filter === 'postgres' || args.filter.startsWith('pg-'))) {
  // The PostgreSQL groups are async (a server, a pool); they run on their own.
  import('./cases/postgres.js')
    .then((m) => m.postgresBench(args))
    .then(exitWith, (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      exitWith(1);
    });
} else {
  main(args).then(exitWith, (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitWith(1);
  });
}
