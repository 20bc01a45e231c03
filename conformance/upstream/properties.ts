/**
 * Upstream monitoring properties (PROTOCOL.md section 9) over the monitor driver and the JSONL
 * adapter, with the models in model.ts as the expected side. Run by properties.test.ts.
 */
import fc from 'fast-check';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSelfEcho, ownEchoSet, type JsonValue, type Observation } from '../../src/core/upstream/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createClaudeJsonlSource, createUpstreamMonitor, type UpstreamSource } from '../../src/upstream/index.js';
import { chunked, humanText, modelCursor, modelEcho, modelMissStreak, modelWatchGaps, perturb, taggedLine, userLine, type MissStep, type WatchStep } from './model.js';

export const AGENT = 'main';
export const TARGET = 'agent:main:adopted:prop';
export const WATCHER = 'agent:main:coordinator';
const T0 = Date.UTC(2026, 0, 1);

const continueInput = (kind: string, ref: Record<string, JsonValue> = {}) => ({
  sessionKey: TARGET,
  agentId: AGENT,
  catalogId: 'claude',
  hostId: 'gateway:local',
  threadId: 'thread-1',
  upstreamKind: kind,
  ref,
});

/** A source answering each check from a queue; found-with-nothing when the queue is empty. */
function queueSource(kind = 'queue') {
  const queue: (Observation | Error)[] = [];
  let checks = 0;
  const source: UpstreamSource = {
    kind,
    baseline: async () => ({ n: 0 }),
    async check({ marker }) {
      checks++;
      const next = queue.shift();
      if (next instanceof Error) throw next;
      return next ?? { status: 'found', turns: [], nextMarker: marker, position: 'p' };
    },
  };
  return { source, queue, checks: () => checks };
}

function harness(source: UpstreamSource, ownTexts?: readonly string[]) {
  let t = T0;
  const now = () => t;
  const store = createMemoryStore({ now });
  const monitor = createUpstreamMonitor({ store, now, logger: silentLogger, sources: [source], ...(ownTexts && { ownTexts: () => ownTexts }) });
  store.watch({ watcherSessionKey: WATCHER, targetSessionKey: TARGET, agentId: AGENT });
  const tick = () => {
    t += 60_000;
    return monitor.tick();
  };
  const events = () => store.changesSince({ sessionKey: TARGET, agentId: AGENT, since: 0 }).stateChanges.events;
  return { store, monitor, tick, events };
}

/** Replays one U2/U3 script; returns what a conformance check compares with modelMissStreak. */
export async function runMissScript(steps: readonly MissStep[]) {
  const q = queueSource();
  const h = harness(q.source);
  await h.monitor.continueSession(continueInput('queue'));
  for (const s of steps) {
    if (s === 'continue') {
      await h.monitor.continueSession(continueInput('queue'));
      continue;
    }
    const linked = (await h.monitor.status()).length > 0;
    if (linked) {
      if (s === 'error') q.queue.push(new Error('transient'));
      else if (s === 'found') q.queue.push({ status: 'found', turns: [], nextMarker: { n: 0 }, position: 'p' });
      else if (s === 'missing') q.queue.push({ status: 'missing' });
      else q.queue.push({ status: 'inconclusive', detail: 'ambiguous' });
    }
    await h.tick();
  }
  const status = await h.monitor.status();
  const missing = h.events().filter((e) => e.kind === 'upstream_missing');
  return {
    upstreamMissing: missing.length,
    linked: status.length > 0,
    checks: q.checks(),
    missCount: status[0]?.missCount ?? 0,
    pendingNotices: h.store.pendingNotices(WATCHER).length,
    otherEvents: h.events().length - missing.length,
  };
}

/** U2: 3 consecutive conclusive misses give exactly one upstream_missing per link streak and delete the link. */
export const missRuleProperty = fc.asyncProperty(
  fc.array(fc.constantFrom<MissStep>('missing', 'missing', 'missing', 'found', 'inconclusive', 'error', 'continue'), { maxLength: 30 }),
  async (steps) => {
    const got = await runMissScript(steps);
    const want = modelMissStreak(steps);
    if (got.upstreamMissing !== want.upstreamMissing || got.linked !== want.linked || got.checks !== want.checks || got.missCount !== want.missCount) {
      throw new Error(`got ${JSON.stringify(got)}, model ${JSON.stringify(want)}`);
    }
    if (got.otherEvents !== 0) throw new Error('unexpected non-missing events');
    if (got.pendingNotices !== (want.upstreamMissing > 0 ? 1 : 0)) throw new Error(`pending notices ${got.pendingNotices}`);
  },
);

/** The store as one without the optional isWatched (R9b): the contract only. */
function withoutIsWatched<S extends object>(store: S): S {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'isWatched') return undefined;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, prop) => prop !== 'isWatched' && Reflect.has(target, prop),
  });
}

/** How the monitor learns that nobody watches (U5 Decision): the store's isWatched, or the runtime's demand. */
export type WatchVia = 'isWatched' | 'demand';

/**
 * Replays one U5/R22 watch script (see modelWatchGaps) against the monitor and the memory store.
 * `demand`: the store's isWatched is hidden and the runtime's demand answers from the live watchers.
 */
export async function runWatchScript(steps: readonly WatchStep[], via: WatchVia) {
  let appended = 0;
  const source: UpstreamSource = {
    kind: 'counter',
    baseline: async () => ({ n: 0 }),
    async check({ marker }) {
      const from = (marker as { n: number }).n;
      const turns = Array.from({ length: appended - from }, (_, i) => ({ text: `human turn ${from + i + 1}` }));
      return { status: 'found', turns, nextMarker: { n: appended }, position: `n${appended}` };
    },
  };
  let t = T0;
  const now = () => t;
  const store = createMemoryStore({ now });
  const watchers: string[] = [];
  const live = new Set<string>();
  const monitor = createUpstreamMonitor({
    store: via === 'isWatched' ? store : withoutIsWatched(store),
    now,
    logger: silentLogger,
    sources: [source],
    ...(via === 'demand' && { demand: () => live.size > 0 }),
  });
  await monitor.continueSession(continueInput('counter'));
  for (const s of steps) {
    if (s === 'turn') appended++;
    else if (s === 'watch') {
      const w = `agent:main:watcher-${watchers.length + 1}`;
      watchers.push(w);
      live.add(w);
      store.watch({ watcherSessionKey: w, targetSessionKey: TARGET, agentId: AGENT });
    } else if (s === 'unwatch') {
      for (const w of live) store.resetSession(w);
      live.clear();
    } else {
      t += 60_000;
      await monitor.tick();
    }
  }
  const events = store.changesSince({ sessionKey: TARGET, agentId: AGENT, since: 0 }).stateChanges.events;
  if (events.some((e) => e.kind !== 'human_direct_message')) throw new Error('unexpected event kind');
  return {
    events: events.map((e) => e.payload?.turns ?? 1),
    notices: watchers.map((w) => {
      const pending = store.pendingNotices(w);
      if (pending.length > 1) throw new Error(`${w} holds ${pending.length} notices for one pair`);
      return pending[0]?.lastSeenSequence ?? null;
    }),
  };
}

/**
 * U5 Decision, R22: activity read while nobody watches is passed over (never reaches a later
 * watcher); activity read while someone watches is recorded once; whichever way the monitor
 * learns the watch state.
 */
export const watchGapProperty = (via: WatchVia) =>
  fc.asyncProperty(fc.array(fc.constantFrom<WatchStep>('turn', 'turn', 'tick', 'tick', 'watch', 'unwatch'), { maxLength: 30 }), async (steps) => {
    const got = await runWatchScript(steps, via);
    const want = modelWatchGaps(steps);
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`got ${JSON.stringify(got)}, model ${JSON.stringify(want)} for ${steps.join(',')}`);
  });

/** Replays one U4 case: own messages, then one check that finds `upstream`; returns recorded turns. */
export async function runEchoCase(own: readonly string[], upstream: readonly string[]) {
  const q = queueSource();
  const h = harness(q.source, own);
  await h.monitor.continueSession(continueInput('queue'));
  q.queue.push({ status: 'found', turns: upstream.map((text) => ({ text })), nextMarker: { n: 1 }, position: 'p1' });
  const report = await h.tick();
  const events = h.events();
  return { humanTurns: events.reduce((s, e) => s + (e.payload?.turns ?? 1), 0), events: events.length, echoTurns: report.echoes, marker: (await h.monitor.status())[0]?.marker };
}

const words = fc.constantFrom('run', 'the', 'tests', 'café', 'Ünïcode', 'déjà vu', '日本', 'ok', 'OK', 'deploy');
const sentence = fc.array(words, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));

/** U4: an upstream turn is an echo iff its normal form equals one of the last 10 own messages'. */
export const echoProperty = fc.asyncProperty(
  fc.array(sentence, { minLength: 0, maxLength: 14 }),
  fc.array(fc.oneof(fc.tuple(fc.nat(), fc.nat()).map(([i, how]) => ({ own: i, how })), fc.oneof(sentence, humanText).map((text) => ({ text }))), { minLength: 1, maxLength: 6 }),
  async (own, picks) => {
    const upstream = picks.map((p) => ('text' in p ? p.text : own.length === 0 ? 'nothing sent' : perturb(own[p.own % own.length]!, p.how)));
    const got = await runEchoCase(own, upstream);
    const want = modelEcho(own, upstream);
    if (got.humanTurns !== want.human || got.echoTurns !== want.echo || got.events !== (want.human > 0 ? 1 : 0)) {
      throw new Error(`got ${JSON.stringify(got)}, model ${JSON.stringify(want)} for ${JSON.stringify({ own, upstream })}`);
    }
    if (JSON.stringify(got.marker) !== JSON.stringify({ n: 1 })) throw new Error('marker did not advance after a successful check');
  },
);

/** Replays appends and checks against a real file through the JSONL adapter (U6). */
export async function runCursorScript(actions: readonly ({ append: Uint8Array } | { check: true })[], scanMaxBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ssk-prop-'));
  try {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, '');
    const source = createClaudeJsonlSource({ scanMaxBytes });
    const target = { hostId: 'gateway:local', threadId: 't', ref: { filePath: path } };
    let marker = await source.baseline(target);
    const out: { offset: number; humanTexts: string[]; long?: number }[] = [];
    for (const a of actions) {
      if ('append' in a) {
        appendFileSync(path, a.append);
        continue;
      }
      const o = await source.check({ ...target, marker });
      if (o.status !== 'found') throw new Error(`unexpected ${o.status}`);
      marker = o.nextMarker;
      const offset = (marker as { offset: number }).offset;
      const entry: (typeof out)[number] = { offset, humanTexts: o.turns.map((t) => t.text) };
      const long = (marker as { long?: { scanned: number } }).long;
      if (long) entry.long = long.scanned;
      out.push(entry);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const actionsArb = (maxLineCount: number) =>
  fc
    .tuple(fc.array(taggedLine, { minLength: 1, maxLength: maxLineCount }), fc.array(fc.nat(), { maxLength: 12 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 24 }))
    .map(([lines, cuts, checkAfter]) => {
      const chunks = chunked(
        lines.map((l) => l.line),
        cuts,
      );
      const actions: ({ append: Uint8Array } | { check: true })[] = [];
      chunks.forEach((c, i) => {
        actions.push({ append: c });
        if (checkAfter[i % checkAfter.length]) actions.push({ check: true });
      });
      // Drain: enough checks to read everything at the smallest scan limit used.
      for (let i = 0; i < 2 + lines.length; i++) actions.push({ check: true });
      return { lines, actions };
    });

/**
 * U6: never skipping bytes. Whatever the append chunking (lines and multi-byte characters split
 * anywhere) and check timing, the adapter reports exactly the model's turns at exactly the model's
 * offsets, and in the end every human line once, in order.
 */
export const neverSkipProperty = (scanMaxBytes: number) =>
  fc.asyncProperty(actionsArb(10), async ({ lines, actions }) => {
    const longest = Math.max(...lines.map((l) => new TextEncoder().encode(`${l.line}\n`).length));
    const limit = Math.max(scanMaxBytes, longest); // no block here: that is blockProperty's job
    const got = await runCursorScript(actions, limit);
    const want = modelCursor(actions, limit);
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`got ${JSON.stringify(got)}\nmodel ${JSON.stringify(want)}`);
    const all = got.flatMap((c) => c.humanTexts);
    const expected = lines.filter((l) => l.human !== undefined).map((l) => l.human);
    if (JSON.stringify(all) !== JSON.stringify(expected)) throw new Error(`turns ${JSON.stringify(all)} != ${JSON.stringify(expected)}`);
  });

/**
 * U6: a line longer than the scan limit is read on across checks (at most 2x the limit per
 * check), classified whole when its newline arrives, and everything before and after it is
 * reported exactly once, in order: the cursor never blocks and never skips.
 */
export const longLineProperty = fc.asyncProperty(
  fc.array(taggedLine, { maxLength: 5 }),
  fc.integer({ min: 64, max: 160 }),
  fc.integer({ min: 1, max: 12 }),
  fc.boolean(),
  fc.array(taggedLine, { maxLength: 3 }),
  async (before, limit, factor, hugeIsHuman, after) => {
    const fits = before.filter((l) => new TextEncoder().encode(`${l.line}\n`).length <= limit);
    const hugeText = 'x'.repeat(limit * factor);
    const huge = hugeIsHuman ? userLine(hugeText) : JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: hugeText }] } });
    const lines = [...fits.map((l) => l.line), huge, ...after.map((l) => l.line)];
    const actions: ({ append: Uint8Array } | { check: true })[] = [];
    for (const c of chunked(lines, [17, 61, 133])) actions.push({ append: c }, { check: true });
    for (let i = 0; i < fits.length + after.length + factor + 4; i++) actions.push({ check: true });
    const got = await runCursorScript(actions, limit);
    if (JSON.stringify(got) !== JSON.stringify(modelCursor(actions, limit))) throw new Error(`adapter and model disagree: ${JSON.stringify(got)}`);
    const texts = got.flatMap((c) => c.humanTexts);
    const expected = [...fits, ...(hugeIsHuman ? [{ line: huge, human: hugeText }] : []), ...after].filter((l) => l.human !== undefined).map((l) => l.human);
    if (JSON.stringify(texts) !== JSON.stringify(expected)) throw new Error(`turns ${JSON.stringify(texts)} != ${JSON.stringify(expected)}`);
    const total = new TextEncoder().encode(lines.map((l) => `${l}\n`).join('')).length;
    if (got.at(-1)!.offset !== total) throw new Error(`cursor ended at ${got.at(-1)!.offset}, file has ${total} bytes`);
  },
);

// ---- whole transcripts mixing every record type (U4, U6) ----------------------------------------

const MARKER_TEXTS = ['[Inter-session message] from agent:main:other: ', 'Continue this conversation using the OpenClaw transcript below. '];
const NOT_TYPED = ['<', '[', 'This session is being continued', 'Caveat:', 'continue this conversation', 'Continue this conversation', '/'];
const IMG = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } };

/** Text a person types in these transcripts: no client form, no marker, no slash (commands are generated apart). */
const typedText = humanText.filter((t) => !NOT_TYPED.some((p) => t.trimStart().startsWith(p)));

type Rec = { tag: 'typed' | 'own' | 'not'; record: unknown; text?: string };

const isoAt = (i: number) => new Date(T0 + i * 1000).toISOString();

/** One record of any type, given own texts to echo. Tags say what a person did. */
function recordArb(own: readonly string[]): fc.Arbitrary<Rec> {
  const typedUser = (content: unknown, extra: Record<string, unknown>) => ({ type: 'user', isSidechain: false, message: { role: 'user', content }, timestamp: isoAt(1), ...extra });
  const provenance = fc.constantFrom<Record<string, unknown>>({ origin: { kind: 'human' }, promptSource: 'typed' }, { promptSource: 'sdk' }, {});
  const queued = (prompt: unknown, origin?: unknown) => ({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'prompt', prompt, ...(origin !== undefined && { origin }) }, timestamp: isoAt(2) });
  const arbs: fc.Arbitrary<Rec>[] = [
    fc.tuple(typedText, provenance).map(([t, p]) => ({ tag: 'typed', record: typedUser(t, p), text: t })),
    fc.tuple(typedText, fc.boolean()).map(([t, blocks]) => ({ tag: 'typed', record: typedUser(blocks ? [{ type: 'text', text: t }, IMG] : [{ type: 'text', text: t }], { origin: { kind: 'human' } }), text: t })),
    typedText.map((t) => ({ tag: 'typed', record: queued(t, { kind: 'human' }), text: t })),
    fc.integer({ min: 2, max: 3 }).map((k) => ({ tag: 'typed', record: queued(Array.from({ length: k }, () => IMG), { kind: 'human' }), text: '' })),
    fc.constantFrom('deploy', 'model').map((name) => ({ tag: 'typed', record: typedUser(`<command-message>${name}</command-message>\n<command-name>/${name}</command-name>\n<command-args>now</command-args>`, { origin: { kind: 'human' } }), text: `/${name} now` })),
    // machine and meta records
    fc.string({ maxLength: 20 }).map((t) => ({ tag: 'not', record: { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: t }] } } })),
    fc.constant<Rec>({ tag: 'not', record: { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }, toolUseResult: { stdout: 'ok' } } }),
    fc.tuple(typedText, fc.constantFrom<Record<string, unknown>>({}, { origin: { kind: 'task-notification' }, promptSource: 'system' })).map(([t, p]) => ({ tag: 'not', record: typedUser(`<task-notification><summary>${t}</summary></task-notification>`, p) })),
    fc.tuple(typedText, fc.constantFrom('peer', 'cron', 'loop', 'coordinator')).map(([t, kind]) => ({ tag: 'not', record: typedUser(t, { origin: { kind } }) })),
    typedText.map((t) => ({ tag: 'not', record: typedUser(t, { promptSource: 'system' }) })),
    fc.tuple(typedText, fc.constantFrom(...MARKER_TEXTS)).map(([t, m]) => ({ tag: 'not', record: typedUser(`${m}${t}`, { origin: { kind: 'human' } }) })),
    typedText.map((t) => ({ tag: 'not', record: typedUser(t, { isMeta: true }) })),
    typedText.map((t) => ({ tag: 'not', record: typedUser(t, { isSidechain: true }) })),
    typedText.map((t) => ({ tag: 'not', record: typedUser(t, { isCompactSummary: true, isVisibleInTranscriptOnly: true }) })),
    typedText.map((t) => ({ tag: 'not', record: queued(t, { kind: 'peer' }) })),
    fc.constant<Rec>({ tag: 'not', record: { type: 'attachment', attachment: { type: 'queued_command', commandMode: 'task-notification', prompt: '<task-notification/>' } } }),
    fc.constantFrom<Rec>(
      { tag: 'not', record: { type: 'system', subtype: 'compact_boundary' } },
      { tag: 'not', record: { type: 'summary', summary: 's', leafUuid: 'x' } },
      { tag: 'not', record: { type: 'file-history-snapshot', snapshot: {} } },
      { tag: 'not', record: { type: 'attachment', attachment: { type: 'date', date: '2026-01-01' } } },
      { tag: 'not', record: typedUser('<local-command-stdout>ok</local-command-stdout>', {}) },
      { tag: 'not', record: typedUser('[Request interrupted by user]', {}) },
      { tag: 'not', record: '' },
      { tag: 'not', record: '{"type":"user","message":' },
    ),
  ];
  if (own.length > 0) {
    // Our own messages coming back, in every form a client writes them.
    arbs.push(
      fc.tuple(fc.constantFrom(...own), fc.nat(), provenance).map(([t, how, p]) => ({ tag: 'own', record: typedUser(perturb(t, how), p) })),
      fc.constantFrom(...own).map((t) => ({ tag: 'own', record: queued(t, { kind: 'human' }) })),
      fc.constant<Rec>({ tag: 'own', record: queued([IMG], { kind: 'human' }) }),
    );
  }
  return fc.oneof(...arbs);
}

/**
 * U4, U6: over generated transcripts mixing every record type, cut anywhere and read through the
 * real adapter with a small scan limit (so long lines occur too), the counted human turns are
 * exactly the turns a person typed, in order, and our own echoes never count.
 */
export const transcriptProperty = fc.asyncProperty(
  fc.uniqueArray(typedText, { maxLength: 4, selector: (t) => t.normalize('NFC').replace(/\s+/gu, ' ').trim() }).chain((own) =>
    fc.tuple(fc.constant(own), fc.array(recordArb(own), { minLength: 1, maxLength: 25 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 96, max: 400 })),
  ),
  async ([own, records, cuts, scanMaxBytes]) => {
    const norm = (t: string) => t.normalize('NFC').replace(/\s+/gu, ' ').trim();
    const ownSet = new Set(own.map(norm));
    // A person's text equal to one of ours is an echo by U4's definition; the generator avoids it.
    const recs = records.filter((r) => r.tag !== 'typed' || !ownSet.has(norm(r.text!)));
    const lines = recs.map((r) => (typeof r.record === 'string' ? r.record : JSON.stringify(r.record)));
    const dir = mkdtempSync(join(tmpdir(), 'ssk-prop-tx-'));
    try {
      const path = join(dir, 't.jsonl');
      writeFileSync(path, '');
      const source = createClaudeJsonlSource({ scanMaxBytes, followCandidates: 0 });
      const target = { hostId: 'gateway:local', threadId: 't', ref: { filePath: path } };
      let marker = await source.baseline(target);
      const monitorOwn: (string | { text: string; images: number })[] = [...own, { text: '', images: 1 }];
      const echo = ownEchoSet(monitorOwn);
      const counted: string[] = [];
      let echoes = 0;
      const check = async () => {
        const o = await source.check({ ...target, marker });
        if (o.status !== 'found') throw new Error(o.status);
        marker = o.nextMarker;
        for (const t of o.turns) {
          if (isSelfEcho(t, echo)) echoes++;
          else counted.push(t.text);
        }
      };
      for (const c of chunked(lines, cuts)) {
        appendFileSync(path, c);
        await check();
      }
      for (let i = 0; i < lines.length * 4 + 4; i++) await check();
      const typed = recs.filter((r) => r.tag === 'typed').map((r) => r.text!);
      if (JSON.stringify(counted) !== JSON.stringify(typed)) throw new Error(`counted ${JSON.stringify(counted)}\ntyped   ${JSON.stringify(typed)}`);
      const ownCount = recs.filter((r) => r.tag === 'own').length;
      if (echoes !== ownCount) throw new Error(`echoes ${echoes} != own records ${ownCount}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
