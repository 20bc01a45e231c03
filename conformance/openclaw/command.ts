import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { lineDiff } from '../../src/shared/line-diff.js';
import { installOpenClaw, OPENCLAW_VERSION } from './install.js';
import { compareWithClassification, loadClassification, renderReport } from './report.js';
import { runProfile, type OpenClawRun, type ProfileRun } from './run.js';
import type { Profile } from './store.js';

export const OPENCLAW_USAGE = `session-state-kit conformance --target openclaw [options]

Runs the conformance suite against OpenClaw's own compiled session-state code: installs the pinned
openclaw package (${OPENCLAW_VERSION}) and a Node 24 from npm into a cache folder (not the project's
node_modules; $SSK_CACHE_DIR, else ~/.cache/session-state-kit), starts the adapter that serves the
wire protocol over OpenClaw's functions, and runs every property, every vector and every replay of a
finding, in two profiles (raw, fronted). Progress goes to stderr.

  --profile raw|fronted   one profile (default: both)
  --runs N, --seed N      cases a property and the seed (default: the classification's, the CI run)
  --property NAME         only this property (repeatable), with --path P to replay one counterexample
  --report FILE           write the classified report (Markdown), e.g. docs/openclaw.md
  --check FILE            exit 1 unless the run matches conformance/openclaw/findings.json and FILE
                          is the report this run generates (its date aside)
  --openclaw-version V    another release than the pinned one (a trial; the classification is the pin's)
  --json                  print the run as JSON on stdout

Exit codes: 0 the run matches (or no --check), 1 it differs, 2 usage or install error.`;

/** `conformance --target openclaw …`. */
export async function openClawCommand(argv: readonly string[], io: { out: (line: string) => void; err: (text: string) => void }): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  function parse() {
    return parseArgs({
      args: [...argv],
      options: {
        target: { type: 'string' },
        profile: { type: 'string' },
        runs: { type: 'string' },
        seed: { type: 'string' },
        property: { type: 'string', multiple: true },
        path: { type: 'string' },
        report: { type: 'string' },
        check: { type: 'string' },
        'openclaw-version': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  }
  try {
    ({ values } = parse());
  } catch (error) {
    io.err(`conformance: ${error instanceof Error ? error.message : String(error)}\n\n${OPENCLAW_USAGE}\n`);
    return 2;
  }
  if (values.help) return (io.out(OPENCLAW_USAGE), 0);
  const profiles: Profile[] = values.profile === undefined ? ['fronted', 'raw'] : values.profile === 'raw' || values.profile === 'fronted' ? [values.profile] : [];
  if (profiles.length === 0) return (io.err(`conformance: --profile must be raw or fronted, got ${JSON.stringify(values.profile)}\n`), 2);
  const classification = loadClassification();
  const int = (v: string | undefined, fallback: number, flag: string) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${JSON.stringify(v)}`);
    return n;
  };
  let runs: number;
  let seed: number;
  try {
    runs = int(values.runs, classification.runs, '--runs');
    seed = int(values.seed, classification.seed, '--seed');
  } catch (error) {
    return (io.err(`conformance: ${(error as Error).message}\n`), 2);
  }
  const progress = (line: string) => io.err(`openclaw: ${line}\n`);
  let install;
  try {
    install = await installOpenClaw(progress, values['openclaw-version'] ?? OPENCLAW_VERSION);
  } catch (error) {
    io.err(`conformance: could not install OpenClaw: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const node = execFileSync(install.node, ['--version'], { encoding: 'utf8' }).trim();
  const run: OpenClawRun = { version: install.version, seed, runs, profiles: [] };
  try {
    for (const profile of profiles) {
      const p: ProfileRun = await runProfile(install, profile, { seed, runs, progress, ...(values.property ? { properties: values.property } : {}), ...(values.path ? { path: values.path } : {}) });
      run.profiles.push(p);
      progress(`${profile}: properties ${p.properties.passed} ok, ${p.properties.failed} failed, ${p.properties.notRun} not run; vectors ${p.vectors.passed} ok, ${p.vectors.failed} failed, ${p.vectors.notRun} not run; ${p.seconds} s`);
    }
  } catch (error) {
    io.err(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (values.json) io.out(JSON.stringify(run, null, 2));
  const date = new Date().toISOString().slice(0, 10);
  if (values.report !== undefined) {
    writeFileSync(values.report, renderReport(run, classification, date, node));
    progress(`wrote ${values.report}`);
  }
  if (values.check === undefined) {
    for (const p of run.profiles) for (const f of p.failures) io.out(`${p.profile}  ${f.id}  ${classification.failures[p.profile]?.[f.id] ?? 'UNCLASSIFIED'}`);
    return 0;
  }
  const differences = compareWithClassification(run, classification);
  let committed = '';
  try {
    committed = readFileSync(values.check, 'utf8');
  } catch {
    differences.push(`${values.check} cannot be read`);
  }
  const committedDate = /^Generated on (\d{4}-\d{2}-\d{2}) /m.exec(committed)?.[1] ?? date;
  const fresh = renderReport(run, classification, committedDate, node);
  if (committed !== '' && committed !== fresh) {
    const diff = lineDiff(values.check, committed, fresh).split('\n').slice(2, 42).join('\n');
    differences.push(`${values.check} is not the report this run generates (regenerate it with --report ${values.check}); the first differences:\n${diff}`);
  }
  if (differences.length > 0) {
    io.err(`openclaw: the run differs from its classification:\n${differences.map((d) => `  ${d}`).join('\n')}\n`);
    return 1;
  }
  progress(`the run matches conformance/openclaw/findings.json and ${values.check}`);
  return 0;
}
