/**
 * The JSONL source on a real file system where its answers alone do not show a decision (U6):
 * which files of the directory may continue a conversation (newer or as new, `.jsonl`, not a
 * sub-agent's, the newest first and only `followCandidates` of them, the session named within the
 * first 64 KiB), that only an idle check looks for one, the followed position, what is inconclusive
 * rather than missing, that no descriptor is left open, and the not-a-person markers it is given.
 */
import { appendFileSync, mkdirSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonValue, Observation } from '../../src/core/upstream/index.js';
import { createClaudeJsonlSource, createCodexRolloutSource, createRemoteHistorySource, type ClaudeJsonlSourceOptions } from '../../src/upstream/index.js';
import { appendLines, line, tempDir } from './helpers.js';

const root = tempDir('ssk-jsonl-follow-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

const OURS = 'aaaaaaaa-0000-4000-8000-00000000000a';
const T = Date.UTC(2026, 0, 1) / 1000; // seconds, for utimes

const rec = (sessionId: string, uuid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ parentUuid: null, isSidechain: false, type: 'assistant', message: { role: 'assistant', content: 'hi' }, uuid, timestamp: '2026-01-01T00:00:00.000Z', sessionId, ...extra });

/** A conversation file in its own directory, its mtime at T, and a driver that keeps its marker. */
async function conversation(options: ClaudeJsonlSourceOptions = {}) {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir);
  const path = join(dir, `${OURS}.jsonl`);
  writeFileSync(path, `${rec(OURS, 'o1')}\n`);
  utimesSync(path, T, T);
  const source = createClaudeJsonlSource(options);
  const target = { hostId: 'gateway:local', threadId: 't', ref: { filePath: path } };
  let marker = await source.baseline(target);
  return {
    dir,
    path,
    /** A file in the directory whose records carry our session id (a continuation), at mtime T + `age` seconds. */
    candidate(name: string, age: number, body = `${rec(OURS, `c-${name}`)}\n`): string {
      const p = join(dir, name);
      writeFileSync(p, body);
      utimesSync(p, T + age, T + age);
      return p;
    },
    async check(): Promise<Observation> {
      const o = await source.check({ ...target, marker });
      if (o.status === 'found') marker = o.nextMarker;
      return o;
    },
    marker: () => marker as Record<string, JsonValue>,
  };
}

const followed = (o: Observation) => (o.status === 'found' ? o.note : undefined);

describe('U6 resume: which file continues the conversation', () => {
  it('a newer continuation is followed: a new epoch at its start, the position saying so', async () => {
    const c = await conversation();
    const next = c.candidate('bbbbbbbb-0000-4000-8000-00000000000b.jsonl', 10);
    const o = await c.check();
    expect(o).toEqual({ status: 'found', turns: [], nextMarker: expect.anything(), position: '1.0', note: 'conversation resumed in bbbbbbbb-0000-4000-8000-00000000000b.jsonl; following it' });
    expect(c.marker()).toMatchObject({ offset: 0, epoch: 1, path: next });
  });

  it('as new as ours is followed; older is not', async () => {
    const same = await conversation();
    same.candidate('same.jsonl', 0);
    expect(followed(await same.check())).toBe('conversation resumed in same.jsonl; following it');
    const older = await conversation();
    older.candidate('older.jsonl', -10);
    expect(followed(await older.check())).toBeUndefined();
  });

  it('only `.jsonl` files, and never an `agent-` file even when it reads like a continuation', async () => {
    const c = await conversation();
    c.candidate('notes.txt', 10);
    c.candidate('agent-1234.jsonl', 10);
    expect(followed(await c.check())).toBeUndefined();
  });

  it('the newest candidates first, and only `followCandidates` of them', async () => {
    const one = await conversation({ followCandidates: 1 });
    // The newest does not continue; the next one does, but only one is looked at.
    one.candidate('newest.jsonl', 30, `${rec('someone-else', 'x1')}\n`);
    one.candidate('second.jsonl', 20);
    expect(followed(await one.check())).toBeUndefined();

    const two = await conversation({ followCandidates: 2 });
    two.candidate('newest.jsonl', 30, `${rec('someone-else', 'x1')}\n`);
    two.candidate('second.jsonl', 20);
    expect(followed(await two.check())).toBe('conversation resumed in second.jsonl; following it');

    const sorted = await conversation({ followCandidates: 1 });
    for (let i = 0; i < 9; i++) sorted.candidate(`decoy-${i}.jsonl`, 10 + i, `${rec('someone-else', `d${i}`)}\n`);
    sorted.candidate('zz-newest.jsonl', 60);
    expect(followed(await sorted.check())).toBe('conversation resumed in zz-newest.jsonl; following it');
  });

  it('a file naming our session only past its first 64 KiB is not a continuation', async () => {
    const c = await conversation();
    const filler = Array.from({ length: 80 }, (_, i) => rec('someone-else', `f${i}`, { pad: 'x'.repeat(1_000) })).join('\n');
    c.candidate('late.jsonl', 10, `${filler}\n${rec(OURS, 'late')}\n`);
    expect(followed(await c.check())).toBeUndefined();
  });

  it('a dangling link among the candidates does not stop the search', async () => {
    const c = await conversation();
    symlinkSync(join(c.dir, 'nowhere'), join(c.dir, 'aaa-dangling.jsonl'));
    c.candidate('next.jsonl', 10);
    expect(followed(await c.check())).toBe('conversation resumed in next.jsonl; following it');
  });

  it('only an idle check looks for a continuation: not one that found a turn, nor one that read other new lines', async () => {
    const c = await conversation();
    c.candidate('next.jsonl', 10);
    // An append makes the file newer than its candidate; its time is put back, as if written at T.
    appendLines(c.path, [line.human('typed in the old file')]);
    utimesSync(c.path, T, T);
    const withTurn = await c.check();
    expect(withTurn.status === 'found' && withTurn.turns.map((t) => t.text)).toEqual(['typed in the old file']);
    expect(followed(withTurn)).toBeUndefined();
    appendLines(c.path, [line.assistant('an answer, nobody typed')]);
    utimesSync(c.path, T, T);
    expect(followed(await c.check())).toBeUndefined();
    expect(followed(await c.check())).toBe('conversation resumed in next.jsonl; following it');
  });
});

describe('U6 resume: only an idle check, continued', () => {
  it('a file emptied in place (a new epoch, nothing read) is not idle: its candidate waits for the next check', async () => {
    const c = await conversation();
    c.candidate('next.jsonl', 10);
    writeFileSync(c.path, '');
    utimesSync(c.path, T, T);
    const reset = await c.check();
    expect(followed(reset)).not.toMatch(/^conversation resumed/);
    expect(c.marker()).toMatchObject({ epoch: 1, offset: 0 });
    expect(followed(await c.check())).toBe('conversation resumed in next.jsonl; following it');
  });

  it('a line still being read past the scan bound is not idle', async () => {
    const c = await conversation({ scanMaxBytes: 256 });
    c.candidate('next.jsonl', 10);
    // A line longer than the bound, not finished yet: the long-line reader holds it.
    appendFileSync(c.path, `{"type":"user","message":{"role":"user","content":"${'x'.repeat(2_000)}`);
    utimesSync(c.path, T, T);
    for (let i = 0; i < 12; i++) expect(followed(await c.check()), `check ${i}`).not.toMatch(/^conversation resumed/);
  });
});

describe('U10: the first record read in steps of the scan bound', () => {
  it('a session_meta ending exactly at a step is still read whole', async () => {
    const dir = join(root, `d${n++}`);
    mkdirSync(dir);
    const step = 256;
    const head = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: 'c', source: 'exec', pad: '' } });
    const line = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: 'c', source: 'exec', pad: 'p'.repeat(2 * step - head.length) } });
    expect(Buffer.byteLength(line)).toBe(2 * step);
    const path = join(dir, 'rollout-2026-01-01T00-00-00-exact.jsonl');
    writeFileSync(path, `${line}\n${JSON.stringify({ timestamp: '2026-01-01T00:00:01.000Z', type: 'event_msg', payload: { type: 'x' } })}\n`);
    const source = createCodexRolloutSource({ scanMaxBytes: step });
    expect(await source.machineDriven!({ hostId: 'gateway:local', threadId: 't', ref: { filePath: path } })).toBe('exec session (session_meta.source "exec")');
  });
});

describe('U6: on the file system', () => {
  it('a path the system cannot resolve (a link loop) is inconclusive, not missing', async () => {
    const c = await conversation();
    const loop = join(c.dir, 'loop.jsonl');
    symlinkSync(join(c.dir, 'loop-b.jsonl'), loop);
    symlinkSync(loop, join(c.dir, 'loop-b.jsonl'));
    const source = createClaudeJsonlSource();
    await expect(source.check({ hostId: 'gateway:local', threadId: 't', ref: { filePath: loop }, marker: { offset: 0, epoch: 0 } })).rejects.toMatchObject({ code: 'ELOOP' });
  });

  it('every check closes the file it opened', async () => {
    const c = await conversation();
    const open = () => readdirSync('/proc/self/fd').length;
    await c.check();
    const before = open();
    for (let i = 0; i < 40; i++) await c.check();
    expect(open() - before).toBeLessThan(10);
  });
});

describe('U6: the not-a-person markers given', () => {
  it('the JSONL and the remote source both use the markers they were given instead of the defaults', async () => {
    const c = await conversation({ notPersonMarkers: ['[bot]'] });
    appendLines(c.path, [line.human('[bot] scheduled reminder'), line.human('[Inter-session message] from a peer')]);
    const o = await c.check();
    // The given marker replaces the defaults: the inter-session text now counts as a person's.
    expect(o.status === 'found' && o.turns.map((t) => t.text)).toEqual(['[Inter-session message] from a peer']);

    const user = (uuid: string, text: string) => ({ uuid, type: 'user', message: { role: 'user', content: text }, timestamp: '2026-01-01T00:00:00.000Z' });
    const items: unknown[] = [user('r1', 'a person')];
    const remote = createRemoteHistorySource({ fetchHistory: async ({ limit }) => items.slice(-limit).reverse(), notPersonMarkers: ['[bot]'] });
    const target = { hostId: 'node:n1', threadId: 'th', ref: { nodeId: 'n1', threadId: 'th' } };
    const marker = await remote.baseline(target);
    items.push(user('r2', '[bot] again'), user('r3', '[Inter-session message] from a peer'));
    const r = await remote.check({ ...target, marker });
    expect(r.status === 'found' && r.turns.map((t) => t.text)).toEqual(['[Inter-session message] from a peer']);
  });
});
