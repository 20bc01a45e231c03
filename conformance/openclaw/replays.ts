/**
 * Minimal replays of what the OpenClaw run found (docs/openclaw.md): each a fixed vector in the
 * suite's own format (W7) with the reference store's answers, so anyone can replay it against the
 * adapter, or against any implementation, with no driver at all. Generated:
 * `npx tsx conformance/openclaw/replays.ts` (`--check` exits 1 when a committed file differs).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVector, renderVector, type VectorSpec } from '../generate-vectors.js';
import { DAY, HOUR, type Command } from '../script.js';

const A = 'main';
const PARENT = 'agent:main:main';
const CHILD = 'agent:main:subagent:child';
const PEER = 'agent:main:peer';
const LEAD = 'agent:main:subagent:lead';

type In = Record<string, unknown>;
const rec = (input: In): Command => ({ op: 'record', args: [input] });
const human = (key: string, extra: In = {}): Command => rec({ sessionKey: key, agentId: key.startsWith('agent:') ? key.split(':')[1] : A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', ...extra });
const spawn = (child: string, parent: string, run: string): Command =>
  rec({ sessionKey: child, agentId: A, kind: 'child_spawned', actorType: 'agent', actorId: parent, runId: run, dedupeKey: `child-spawned:${run}`, summary: 'child session spawned', watchers: [parent] });
const watch = (w: string, t: string, agentId = A): Command => ({ op: 'watch', args: [{ watcherSessionKey: w, targetSessionKey: t, agentId }] });
const pending = (w: string): Command => ({ op: 'pendingNotices', args: [w] });
const drain = (w: string): Command => ({ op: 'drainNotices', args: [w] });
const advance = (ms: number): Command => ({ op: 'advance', args: [ms] });

export const REPLAYS: VectorSpec[] = [
  {
    name: 'openclaw-spawn-reseed-two-notices',
    rules: ['R14', 'R24'],
    description:
      'A spawn that re-seeds a parent\'s cursor while a notice is pending leaves that notice queued, and the next change queues a second one with another L: two pending notices for one pair. The reference keeps the pending notice and its frozen watermark (R14) and so one notice (R24).',
    script: [human(CHILD, { watchers: [PARENT] }), pending(PARENT), spawn(CHILD, PARENT, 'r2'), human(CHILD), pending(PARENT), drain(PARENT), pending(PARENT)],
  },
  {
    name: 'openclaw-notices-outlive-their-cursor',
    rules: ['R44', 'R50', 'R51', 'R24'],
    description:
      'A queued notice outlives the cursor it stands for: after the watcher\'s reset, after the watcher\'s delete, and after its cursor expired (30 days idle, then a prune) the notice is still pending, and a drain hands it over for a watch that no longer exists. The reference removes the notice with its cursor (R50, R51, R44).',
    script: [
      watch(PARENT, PEER),
      watch(LEAD, PEER),
      watch('agent:main:coordinator', PEER),
      human(PEER),
      pending(PARENT),
      { op: 'resetSession', args: [PARENT] },
      pending(PARENT),
      { op: 'deleteSession', args: [LEAD, A] },
      pending(LEAD),
      advance(30 * DAY + HOUR),
      { op: 'prune', args: [] },
      pending('agent:main:coordinator'),
      drain('agent:main:coordinator'),
    ],
  },
  {
    name: 'openclaw-queue-drops-past-twenty',
    rules: ['R24', 'R20'],
    description:
      'One watcher with pending notices about 21 targets: the in-memory queue keeps the newest 20 and drops the first without a word, while its cursor still says a notice is pending. The reference has every pending notice (R20, R24).',
    script: [...Array.from({ length: 21 }, (_, i) => human(`agent:main:fan-${String(i).padStart(2, '0')}`, { watchers: [PARENT] })), pending(PARENT)],
  },
  {
    name: 'openclaw-case-folded-watchers-share-a-queue',
    rules: ['R1', 'R24', 'R27'],
    description:
      'Two watchers whose keys differ only in case are two sessions (R1 compares keys exactly), but share one notice queue: the one that never watched sees, and drains, the notice of the other, which then never gets it.',
    script: [watch('agent:main:Lead', PEER), human(PEER), pending('agent:main:lead'), drain('agent:main:lead'), pending('agent:main:Lead')],
  },
  {
    name: 'openclaw-fractional-occurred-at-drops-the-event',
    rules: ['R6', 'R9'],
    description:
      'An occurredAt with a fraction of a millisecond (as an upstream timestamp may carry) is bad input: the reference refuses it with a ValidationError on occurredAt and writes nothing (R9). OpenClaw clamps it into [now - 24h, now] keeping the fraction, the STRICT INTEGER column refuses the row, and the event is lost with a log line, its watchers told nothing.',
    script: [human(PEER, { watchers: [PARENT], occurredAt: 1767225599000.5 }), { op: 'stateVersion', args: [PEER, A] }, pending(PARENT)],
  },
  {
    name: 'openclaw-dedupe-hit-prunes',
    rules: ['R43', 'R8'],
    description:
      'A record whose dedupe key is retained changes nothing (R8), and R43 prunes only on an insert; OpenClaw prunes after the dedupe hit too, so a second replay of the same key, moments later, inserts a new event.',
    script: [human(PEER, { dedupeKey: 'd1' }), advance(30 * DAY + 1), human(PEER, { dedupeKey: 'd1' }), human(PEER, { dedupeKey: 'd1' }), { op: 'changesSince', args: [{ sessionKey: PEER, agentId: A, since: 0 }] }],
  },
];

const here = fileURLToPath(new URL('./replays/', import.meta.url));

/** The replay files as text, by file name. */
export async function generateReplays(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const spec of REPLAYS) out.set(`${spec.name}.json`, renderVector(await buildVector(spec)));
  return out;
}

export function replaysDir(): string {
  return here;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const files = await generateReplays();
  let drift = 0;
  mkdirSync(here, { recursive: true });
  for (const f of readdirSync(here).filter((x) => x.endsWith('.json') && !files.has(x))) {
    if (check) (console.error(`drift: ${f} is not generated any more`), drift++);
    else rmSync(join(here, f));
  }
  for (const [name, text] of files) {
    const path = join(here, name);
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) (console.error(`drift: conformance/openclaw/replays/${name} differs (run npx tsx conformance/openclaw/replays.ts)`), drift++);
    } else writeFileSync(path, text);
  }
  if (drift > 0) process.exit(1);
  console.log(check ? `conformance/openclaw/replays is up to date (${files.size})` : `wrote ${files.size} replays to conformance/openclaw/replays`);
}
