/**
 * Done-when: a real transcript appended by ANOTHER PROCESS while the monitor ticks (fake clock,
 * explicit ticks), against the in-memory reference store with watchers registered. Watchers must
 * get exactly what the protocol promises: one pending notice per pair (R24), the events in
 * changesSince (R30), no event for our own echoes (U4), one upstream_missing after the file is
 * deleted and three checks pass (U2).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noticeText } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createClaudeJsonlSource, createUpstreamMonitor } from '../../src/upstream/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { A, COORD, PARENT, TARGET, continueInput, fakeClock, line, tempDir, writeLines } from './helpers.js';

const WRITER = `
import { appendFileSync, unlinkSync } from 'node:fs';
const path = process.argv[2];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
process.on('message', async (msg) => {
  if (msg.op === 'append') appendFileSync(path, Buffer.from(msg.hex, 'hex'));
  else if (msg.op === 'burst') {
    for (const hex of msg.chunks) {
      appendFileSync(path, Buffer.from(hex, 'hex'));
      await sleep(msg.delayMs);
    }
  } else if (msg.op === 'delete') unlinkSync(path);
  else if (msg.op === 'exit') process.exit(0);
  process.send({ done: msg.id });
});
process.send({ ready: true });
`;

const dir = tempDir('ssk-done-when-');
const file = join(dir, 'session.jsonl');
let child: ChildProcess;
const waiting = new Map<number, () => void>();
let nextId = 0;

function send(op: Record<string, unknown>): Promise<void> {
  const id = ++nextId;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    child.send({ ...op, id });
  });
}
const hex = (b: Buffer) => b.toString('hex');

/** Splits bytes at the given offsets; used to cut lines and multi-byte characters across writes. */
function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c <= start || c >= bytes.length) continue;
    out.push(bytes.subarray(start, c));
    start = c;
  }
  out.push(bytes.subarray(start));
  return out;
}

beforeAll(async () => {
  writeLines(file, [line.human('history before adoption'), line.assistant()]);
  const script = join(dir, 'writer.mjs');
  writeFileSync(script, WRITER);
  child = fork(script, [file], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m: { ready?: boolean; done?: number }) => {
      if (m.ready) resolve();
      if (m.done !== undefined) waiting.get(m.done)?.();
    });
  });
});

afterAll(() => {
  if (child.exitCode === null) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('done-when: upstream monitoring of a transcript written by another process', () => {
  it('delivers exactly the promised notices, events and one upstream_missing', async () => {
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const logger = memoryLogger();
    const monitor = createUpstreamMonitor({ store, now: clock.now, logger, sources: [createClaudeJsonlSource()], intervalMs: 60_000 });
    const tick = async () => {
      clock.advance(60_000);
      return monitor.tick();
    };
    const events = (since = 0) => store.changesSince({ sessionKey: TARGET, agentId: A, since }).stateChanges.events;
    const turnsOf = (es: ReturnType<typeof events>) => es.reduce((sum, e) => sum + (e.payload?.turns ?? 1), 0);

    expect(await monitor.continueSession(continueInput(file))).toMatchObject({ linked: true, created: true });
    expect(store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A })).toEqual({ watched: true });
    expect(store.watch({ watcherSessionKey: PARENT, targetSessionKey: TARGET, agentId: A })).toEqual({ watched: true });
    const own = 'Run the migration, then report back.';
    monitor.noteOwnUserMessage(TARGET, A, own);

    // 1. Our own prompt echoed upstream (reflowed whitespace) plus the assistant's answer: no event.
    await send({ op: 'append', hex: hex(Buffer.from(`${line.human('Run the migration,\n  then report back. ')}\n${line.assistant()}\n`)) });
    expect((await tick()).echoes).toBe(1);
    expect(events()).toEqual([]);
    expect(store.pendingNotices(COORD)).toEqual([]);

    // 2. A person types upstream; the writer's line is split inside a multi-byte character.
    const typed = Buffer.from(`${line.human('Стоп — сначала бэкап 💾, потом миграция')}\n`);
    const cut = typed.indexOf(Buffer.from('💾')) + 2;
    await send({ op: 'append', hex: hex(typed.subarray(0, cut)) });
    await tick();
    expect(events()).toEqual([]); // half a line is not classified
    await send({ op: 'append', hex: hex(typed.subarray(cut)) });
    await tick();
    const first = events();
    expect(first).toMatchObject([{ kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude' }]);
    expect(first[0]!.payload).toBeUndefined(); // U5 production shape: one turn, no payload
    for (const w of [COORD, PARENT]) {
      expect(store.pendingNotices(w)).toEqual([expect.objectContaining({ targetSessionKey: TARGET, lastSeenSequence: 0, text: noticeText(TARGET, 0) })]);
    }

    // 3. A burst written over time in many pieces while the monitor keeps ticking: 6 human turns,
    //    2 echoes of our messages, tool results and a garbage line, cut at awkward byte offsets.
    monitor.noteOwnUserMessage(TARGET, A, 'Also update the changelog.');
    const burstLines = [
      line.human('ещё: проверь индексы ✅', '2026-01-01T00:01:00.000Z'),
      line.toolResult(),
      line.human('Also update   the changelog.'),
      line.human('second human turn — 日本語', '2026-01-01T00:01:01.000Z'),
      '{"type":"user","message": not json',
      line.human('third 🎉 turn', '2026-01-01T00:01:02.000Z'),
      line.meta(),
      line.human(own),
      line.human('fourth', '2026-01-01T00:01:03.000Z'),
      line.sidechain('a sub-agent prompt'),
      line.human('fifth ø', '2026-01-01T00:01:04.000Z'),
      line.assistant(),
      line.human('sixth and last', '2026-01-01T00:01:05.000Z'),
    ];
    const burst = Buffer.from(burstLines.map((l) => `${l}\n`).join(''));
    const cuts: number[] = [];
    for (const ch of ['✅', '日', '🎉', 'ø']) cuts.push(burst.indexOf(Buffer.from(ch)) + 1);
    for (let c = 97; c < burst.length; c += 211) cuts.push(c);
    const writing = send({ op: 'burst', chunks: splitAt(burst, cuts).map(hex), delayMs: 2 });
    let writerDone = false;
    void writing.then(() => (writerDone = true));
    let ticks = 0;
    while (!writerDone) {
      await tick();
      ticks++;
      await new Promise((r) => setTimeout(r, 3));
    }
    await tick();
    await tick();
    expect(ticks).toBeGreaterThan(0);
    const all = events();
    expect(all.every((e) => e.kind === 'human_direct_message')).toBe(true);
    expect(turnsOf(all)).toBe(1 + 6); // every human turn exactly once, no echo, no tool result, no garbage
    expect(new Set(all.map((e) => e.dedupeKey)).size).toBe(all.length);
    // Still one pending notice per pair, byte-identical to the first (frozen L = 0).
    for (const w of [COORD, PARENT]) expect(store.pendingNotices(w)).toEqual([expect.objectContaining({ lastSeenSequence: 0, text: noticeText(TARGET, 0) })]);

    // The coordinator reconciles: the drained notice quotes 0; the interleaved burst yields exactly one follow-up (R28).
    const drained = store.drainNotices(COORD);
    expect(drained).toHaveLength(1);
    const follow = store.pendingNotices(COORD);
    expect(follow).toEqual([expect.objectContaining({ lastSeenSequence: first[0]!.sequence })]);
    expect(turnsOf(events(follow[0]!.lastSeenSequence))).toBe(6);
    store.drainNotices(COORD);
    expect(store.pendingNotices(COORD)).toEqual([]);

    // 4. The other process deletes the transcript: three checks, then exactly one upstream_missing.
    await send({ op: 'delete' });
    expect(existsSync(file)).toBe(false);
    const before = events().length;
    await tick();
    await tick();
    expect(events().length).toBe(before);
    expect((await monitor.status())[0]).toMatchObject({ state: 'missing', missCount: 2 });
    await tick();
    await tick();
    await tick();
    const missing = events().filter((e) => e.kind === 'upstream_missing');
    expect(missing).toMatchObject([{ actorType: 'system', payload: { channel: 'claude' } }]);
    expect(events().length).toBe(before + 1);
    expect(await monitor.status()).toEqual([]);
    // COORD (drained) gets one new notice; PARENT still holds exactly its one pending notice.
    expect(store.pendingNotices(COORD)).toEqual([expect.objectContaining({ lastSeenSequence: all.at(-1)!.sequence })]);
    expect(store.pendingNotices(PARENT)).toHaveLength(1);
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([]);

    const exited = new Promise((r) => child.once('exit', r));
    child.send({ op: 'exit', id: 0 });
    await exited;
  });
});
