#!/usr/bin/env node
// `npm run mutation -- [part...] [--force]`: runs Stryker once per part (mutation/parts.mjs) and
// prints each part's score, wall time and the machine's load. Not part of `npm test`: a full run takes
// tens of minutes. `--inPlace` is passed through: in a git worktree whose node_modules is a symlink,
// the SQLite tests failed to load better-sqlite3 in Stryker's sandbox copy (2026-12-03), so such a
// worktree mutates its files in place (an interrupted run leaves them mutated: `git checkout src/`).
// `--ignoreStatic` is passed through too: a static mutant re-runs every test of the selection, and
// where the selection loads agent SDKs (the integrations) each costs most of a minute; the report
// then leaves those mutants out (Ignored), and the score says so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PARTS } from './parts.mjs';

const args = process.argv.slice(2);
const force = args.includes('--force');
const inPlace = args.includes('--inPlace');
const ignoreStatic = args.includes('--ignoreStatic');
const names = args.filter((a) => !a.startsWith('--'));
for (const n of names) if (!(n in PARTS)) {
  console.error(`mutation: unknown part "${n}"; parts: ${Object.keys(PARTS).join(', ')}`);
  process.exit(2);
}
const chosen = names.length > 0 ? names : Object.keys(PARTS).filter((n) => PARTS[n].inDefaultRun !== false);
const rows = [];
for (const name of chosen) {
  const started = Date.now();
  const loadBefore = loadavg()[0];
  console.log(`\n=== mutation part ${name} (${PARTS[name].mutate.join(' ')}) ===`);
  const result = spawnSync(
    process.execPath,
    ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', 'mutation/stryker.config.mjs', ...(force ? ['--force'] : []), ...(inPlace ? ['--inPlace'] : []), ...(ignoreStatic ? ['--ignoreStatic'] : [])],
    { stdio: 'inherit', env: { ...process.env, SSK_MUTATION_PART: name } },
  );
  const minutes = (Date.now() - started) / 60_000;
  if (result.status !== 0) {
    console.error(`mutation: part ${name} failed (exit ${result.status})`);
    process.exit(1);
  }
  // Load averages (1 min) at the start and the end: the times only mean something next to them.
  rows.push({ name, minutes, load: `${loadBefore.toFixed(1)}-${loadavg()[0].toFixed(1)}`, ...score(name) });
}
console.log('\npart       score   killed  timeout  survived  no-cov  minutes  target  load');
for (const r of rows) {
  console.log(
    `${r.name.padEnd(10)} ${r.score.toFixed(1).padStart(5)}%  ${String(r.killed).padStart(6)}  ${String(r.timeout).padStart(7)}  ${String(r.survived).padStart(8)}  ${String(r.noCoverage).padStart(6)}  ${r.minutes.toFixed(1).padStart(7)}  ${PARTS[r.name].target}%  ${r.load}${r.ignored > 0 ? `  (${r.ignored} ignored)` : ''}`,
  );
}

/** Score = (killed + timeout) / (all valid mutants), as Stryker reports it. */
function score(name) {
  const report = JSON.parse(readFileSync(`mutation/reports/${name}.json`, 'utf8'));
  const c = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, ignored: 0 };
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (m.status === 'Killed') c.killed++;
      else if (m.status === 'Timeout') c.timeout++;
      else if (m.status === 'Survived') c.survived++;
      else if (m.status === 'NoCoverage') c.noCoverage++;
      else if (m.status === 'Ignored') c.ignored++;
    }
  }
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return { ...c, score: valid === 0 ? 0 : (100 * (c.killed + c.timeout)) / valid };
}
