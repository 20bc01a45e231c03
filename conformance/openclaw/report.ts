import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openClawDataDir, type OpenClawRun, type ProfileRun } from './run.js';

/**
 * The classified report of a run against OpenClaw (docs/openclaw.md), generated, never edited by
 * hand: the classification is data (findings.json), so a change in what fails, or why, is a
 * reviewed diff of that file, and the CI check fails until it is made.
 */

export type FindingClass = 'kit-extension' | 'contradicts-docs' | 'silent-choice' | 'adapter-limit' | 'suite-defect';

export const CLASS_TEXT: Record<FindingClass, string> = {
  'kit-extension': 'a kit extension OpenClaw lacks by design',
  'contradicts-docs': 'OpenClaw behaviour that contradicts the documents it ships',
  'silent-choice': 'a choice where the documents are silent (the kit\'s Decision)',
  'adapter-limit': 'a limit of the adapter, not of OpenClaw',
  'suite-defect': 'a defect of the kit\'s own suite',
};

export interface Finding {
  id: string;
  class: FindingClass;
  title: string;
  /** contradicts-docs: the sentence of OpenClaw's docs; silent-choice: the PROTOCOL Decision; else the reason. */
  cite: string;
  /** The replay vector (conformance/openclaw/replays/<name>.json), for OpenClaw behaviour. */
  replay?: string;
}

export interface Classification {
  openclaw: string;
  seed: number;
  runs: number;
  findings: Finding[];
  /** Per profile: each failing property or vector, by id, to the finding that explains it. */
  failures: Record<'raw' | 'fronted', Record<string, string>>;
  /** Per profile: the replays that reproduce (fail against the adapter). */
  reproduces: Record<'raw' | 'fronted', string[]>;
}

export function loadClassification(path = join(openClawDataDir(), 'findings.json')): Classification {
  return JSON.parse(readFileSync(path, 'utf8')) as Classification;
}

/** What differs between a run and its classification: an unclassified failure, a classified one that passed, a replay that changed. Empty: they agree. */
export function compareWithClassification(run: OpenClawRun, c: Classification): string[] {
  const out: string[] = [];
  if (run.version !== c.openclaw) out.push(`the run is of openclaw ${run.version}, the classification of ${c.openclaw}`);
  if (run.seed !== c.seed || run.runs !== c.runs) out.push(`the run used seed ${run.seed} and ${run.runs} cases a property; the classification was made with seed ${c.seed} and ${c.runs}`);
  const ids = new Set(c.findings.map((f) => f.id));
  for (const p of run.profiles) {
    const expected = c.failures[p.profile] ?? {};
    const got = new Set(p.failures.map((f) => f.id));
    for (const f of p.failures) if (expected[f.id] === undefined) out.push(`${p.profile}: ${f.id} fails and is not classified (add it to conformance/openclaw/findings.json)`);
    for (const id of Object.keys(expected)) {
      if (!got.has(id)) out.push(`${p.profile}: ${id} is classified as failing (${expected[id]}) but passed`);
      if (!ids.has(expected[id]!)) out.push(`${p.profile}: ${id} names the unknown finding ${expected[id]}`);
    }
    const repro = new Set(p.replays.filter((r) => r.reproduces).map((r) => r.name));
    const want = new Set(c.reproduces[p.profile] ?? []);
    for (const r of repro) if (!want.has(r)) out.push(`${p.profile}: the replay ${r} now reproduces`);
    for (const r of want) if (!repro.has(r)) out.push(`${p.profile}: the replay ${r} no longer reproduces`);
  }
  return out;
}

/** How each wire op reaches OpenClaw (the adapter's mapping, conformance/openclaw/store.ts). */
export const MAPPING: [op: string, openclaw: string][] = [
  ['`hello`', 'the adapter; `lacks` names limits, noticeLink, unwatch, ambientWatch and recordMany (W4)'],
  ['`create`', 'a gateway start on an empty state folder (`OPENCLAW_STATE_DIR`): the in-memory queue emptied (`resetSystemEventsForTest`), then the startup `sweepSessionStateWatchNotices`, which prunes and sets the prune clock. `retentionMs`, `maxRows` or `noticeLink` other than the defaults: ProtocolError (OpenClaw has neither)'],
  ['`openHandle`', 'a second gateway process on the same state folder, started the same way'],
  ['`record`', '`recordSessionStateEvent(input, {now})`, the kit\'s `watchers` passed as `watcherSessionKeys`; with `onlyIfWatched` and kind `human_direct_message`, the human-turn producer `recordSessionHumanDirectMessage` (its watcher probe; the first producer-passed watcher as the entry\'s `spawnedBy`, the channel from the payload or the summary)'],
  ['`watch`', '`registerSessionStateWatch({watcherSessionKey, targetSessionKey, targetAgentId}, {now})`; `provenance: \'ambient\'`: ProtocolError (OpenClaw registers ambient watches only for routed group sessions)'],
  ['`unwatch`, `recordMany`', 'ProtocolError: OpenClaw has neither'],
  ['`stateVersion`', '`getSessionStateVersion(sessionKey, agentId)`'],
  ['`changesSince`', 'what `session_status` answers: `{stateVersion: getSessionStateVersion(...), stateChanges: listSessionStateEventsSince(sessionKey, agentId, since, limit)}`'],
  ['`pendingNotices`', '`peekSystemEventEntries(watcher)`, the entries whose context key starts `session-state:`; the target from `decodeSessionStateNoticeContextKey`, L from the text, the target agent from `resolveAgentIdFromSessionKey`, the wake from `isSubagentSessionKey` (OpenClaw\'s own rule)'],
  ['`drainNotices`', 'the reply path (`src/auto-reply/reply/session-system-events.ts`, checked when the adapter loads): `consumeSelectedSystemEventEntries`, then `acknowledgeSessionStateNotices(watcher, targets, {now})`, which enqueues one follow-up where work interleaved'],
  ['`ackNotices`', 'the same two calls for exactly the queued entries with the acked target and L'],
  ['`prune`', 'the hourly prune\'s body: `pruneSessionStateEventsInDatabase(db, now)` in `runOpenClawStateWriteTransaction`'],
  ['`restart`', 'a gateway restart: the in-memory queue emptied, then the startup sweep'],
  ['`resetSession`', 'the session reset handler `handleSessionStateSessionReset(sessionKey)`'],
  ['`deleteSession`', 'the session delete handler `handleSessionStateSessionDeleted(sessionKey, agentId)`'],
  ['`close`, `shutdown`', 'the adapter (the state folder is removed with the store that made it)'],
];

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const firstLine = (s: string, max = 220) => {
  const line = s.split('\n')[0]!;
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

function counts(p: ProfileRun): string {
  return `| ${p.profile} | ${p.properties.passed} | ${p.properties.failed} | ${p.properties.notRun} | ${p.vectors.passed} | ${p.vectors.failed} | ${p.vectors.notRun} | ${p.wireCases.passed} of ${p.wireCases.run} | ${p.replays.filter((r) => r.reproduces).length} of ${p.replays.length} | ${p.handles} |`;
}

/** The report as Markdown. `date` is the day it was generated (YYYY-MM-DD). */
export function renderReport(run: OpenClawRun, c: Classification, date: string, node: string): string {
  const byId = new Map(c.findings.map((f) => [f.id, f]));
  const out: string[] = [];
  out.push('# The conformance suite against OpenClaw');
  out.push('');
  out.push('<!-- Generated by `session-state-kit conformance --target openclaw --report docs/openclaw.md`; do not edit. The classification is conformance/openclaw/findings.json. -->');
  out.push('');
  out.push('```sh');
  out.push('npm run cli -- conformance --target openclaw                               # what CI runs: installs the pinned openclaw and Node 24 into a cache folder, then both profiles');
  out.push('npm run cli -- conformance --target openclaw --runs 100 --report out.md    # the full run, with its report');
  out.push('```');
  out.push('');
  out.push(`Generated on ${date} against **openclaw ${run.version}** (npm, its compiled \`dist/\`), run by Node ${node}, seed ${run.seed}, ${run.runs} cases a property (the CI configuration; \`--runs 100\` is the full run). Every property and vector of the suite ran through the adapter over the wire protocol (W1-W8), as an outside implementation is judged, in two profiles:`);
  out.push('');
  out.push('- **raw**: OpenClaw\'s own functions called as they are, their answers passed through;');
  out.push('- **fronted**: the same calls behind the kit\'s input validation, with representation-only fixes (the context-key format, and the `recordedAt` and `dedupeKey` an event carries, which OpenClaw does not store). Whatever still fails here is OpenClaw behaviour.');
  out.push('');
  out.push('OpenClaw lacks per-store limits, a notice link, `unwatch`, ambient watches by request and `recordMany`; the adapter says so in its `hello` (W4), the suite generates no call that needs them, and what judges them is counted as not run.');
  out.push('');
  out.push('## Counts');
  out.push('');
  // No times here: the report is compared byte for byte with a fresh run (--check), and times vary.
  out.push('| profile | properties ok | failed | not run | vectors ok | failed | not run | wire cases ok | finding replays reproducing | handles |');
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const p of run.profiles) out.push(counts(p));
  out.push('');
  out.push('## Findings');
  out.push('');
  out.push('Each failure below is explained by one finding. *Reached by* lists the suite\'s generators (properties) and vectors that failed because of it in this run; a finding that only its replay reaches is a gap of the suite\'s default run.');
  out.push('');
  out.push('| finding | class | why | replay | reproduces | reached by |');
  out.push('|---|---|---|---|---|---|');
  for (const f of c.findings) {
    const reached = run.profiles.flatMap((p) => p.failures.filter((x) => c.failures[p.profile]?.[x.id] === f.id).map((x) => `${x.id.replace(/^(property|vector):/, '')} (${p.profile})`));
    const repro = f.replay === undefined ? '' : run.profiles.filter((p) => p.replays.some((r) => r.name === f.replay && r.reproduces)).map((p) => p.profile).join(', ') || 'no';
    const gap = f.replay !== undefined && repro !== 'no' ? ' **(gap: only its replay reaches it)**' : '';
    out.push(`| **${cell(f.title)}** | ${CLASS_TEXT[f.class]} | ${cell(f.cite)} | ${f.replay === undefined ? '' : `\`replays/${f.replay}.json\``} | ${repro} | ${reached.length > 0 ? cell(reached.join(', ')) : `none${gap}`} |`);
  }
  for (const p of run.profiles) {
    out.push('');
    out.push(`## Failures, ${p.profile} profile`);
    out.push('');
    out.push('| failing | finding | class | first counterexample (shrunk) says |');
    out.push('|---|---|---|---|');
    for (const f of p.failures) {
      const finding = byId.get(c.failures[p.profile]?.[f.id] ?? '');
      out.push(`| \`${f.id}\` | ${finding ? cell(finding.title) : '**unclassified**'} | ${finding ? finding.class : ''} | ${cell(firstLine(f.message))} |`);
    }
    if (p.notRun.length > 0) {
      out.push('');
      out.push(`Not run (${p.notRun.length}): ${p.notRun.map((n) => `\`${n.id.replace(/^(property|vector):/, '')}\``).join(', ')}: ${[...new Set(p.notRun.map((n) => n.reason))].join('; ')}.`);
    }
  }
  out.push('');
  out.push('## Counterexamples');
  out.push('');
  out.push('The first counterexample of every failing property, shrunk, as the suite printed it (fronted profile; the replay line reruns exactly that case).');
  const fronted = run.profiles.find((p) => p.profile === 'fronted');
  for (const f of fronted?.failures.filter((x) => x.id.startsWith('property:')) ?? []) {
    out.push('');
    out.push(`### ${f.id.replace('property:', '')}`);
    out.push('');
    out.push('```');
    out.push(f.message.split('\n').slice(0, 6).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l)).join('\n'));
    out.push('');
    out.push(f.script);
    out.push('```');
    if (f.replay !== undefined) out.push(`Replay: \`session-state-kit conformance --target openclaw --profile fronted ${f.replay}\``);
  }
  out.push('');
  out.push('## How each wire op reaches OpenClaw');
  out.push('');
  out.push('The adapter (`conformance/openclaw/`) finds every function by the `//#region src/...` marker of the chunk that defines it and by its own name, and checks the whole set when it loads: a release that moves one fails with a message naming what was not found, never a silent wrong mapping.');
  out.push('');
  out.push('| wire op | what the gateway does |');
  out.push('|---|---|');
  for (const [op, what] of MAPPING) out.push(`| ${op} | ${cell(what)} |`);
  out.push('');
  return out.join('\n');
}
