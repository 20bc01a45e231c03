import { appendFileSync, mkdirSync, renameSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { classifyClaudeLine, jsonlMarkerJson, scanJsonlChunk, type JsonValue, type Observation } from '../../src/core/upstream/index.js';
import { createClaudeJsonlSource } from '../../src/upstream/index.js';
import { appendLines, line, tempDir, writeLines } from './helpers.js';

const dir = tempDir('ssk-jsonl-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `t${++n}.jsonl`);

const target = (filePath: string) => ({ hostId: 'gateway:local', threadId: 't', ref: { filePath } });

/** A tiny driver over one source: check from the marker, keep the marker as the monitor would. */
function cursor(filePath: string, scanMaxBytes?: number) {
  const source = createClaudeJsonlSource(scanMaxBytes === undefined ? {} : { scanMaxBytes });
  let marker: JsonValue = { offset: 0, epoch: 0 };
  return {
    get marker() {
      return marker as { offset: number; epoch: number; file?: string };
    },
    async baseline() {
      marker = await source.baseline(target(filePath));
    },
    async check(): Promise<Observation> {
      const o = await source.check({ ...target(filePath), marker });
      if (o.status === 'found') marker = o.nextMarker;
      return o;
    },
  };
}
const texts = (o: Observation) => (o.status === 'found' ? o.turns.map((t) => t.text) : o.status);

describe('U6 classification of Claude Code transcript lines', () => {
  it('human turns: user lines with string content or text/image blocks', () => {
    expect(classifyClaudeLine(line.human('fix the tests'))).toMatchObject({ human: true, text: 'fix the tests', occurredAt: Date.parse('2026-01-01T00:00:30.000Z') });
    expect(classifyClaudeLine(line.humanBlocks(['one', 'two']))).toMatchObject({ human: true, text: 'one\ntwo' });
    expect(classifyClaudeLine(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'image', source: {} }] } }))).toMatchObject({ human: true, text: '' });
    expect(classifyClaudeLine(line.human('<command-name>/model</command-name>'))).toMatchObject({ human: true });
  });

  it('not human: tool results, meta, sidechain, compaction, client output, assistant, garbage', () => {
    const reasons = [
      line.toolResult(),
      line.meta(),
      line.sidechain(),
      line.assistant(),
      line.summary(),
      JSON.stringify({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued...' } }),
      line.human('<local-command-stdout>ok</local-command-stdout>'),
      line.human('<bash-stdout>ls</bash-stdout>'),
      line.humanBlocks(['[Request interrupted by user for tool use]']),
      JSON.stringify({ type: 'user', message: { role: 'user', content: '   ' } }),
      '{"type":"user","message":',
      'not json at all',
      '',
      '42',
    ].map((l) => classifyClaudeLine(l));
    expect(reasons.every((r) => !r.human)).toBe(true);
    expect(reasons.map((r) => (r.human ? 'human' : r.reason))).toEqual([
      'tool-result', 'meta', 'sidechain', 'assistant', 'record', 'compact-summary', 'client-output', 'client-output', 'client-output', 'no-text', 'not-json', 'not-json', 'blank', 'record',
    ]);
  });

  it('scanJsonlChunk: complete lines only, a partial tail waits, a full chunk without newline blocks', () => {
    const enc = new TextEncoder();
    const s = scanJsonlChunk(enc.encode('ab\ncd\nef'), 10, 100);
    expect(s.lines.map((l) => [l.offset, new TextDecoder().decode(l.bytes)])).toEqual([[10, 'ab'], [13, 'cd']]);
    expect(s.nextOffset).toBe(16);
    expect(scanJsonlChunk(enc.encode('partial'), 4, 100)).toEqual({ lines: [], nextOffset: 4 });
    expect(scanJsonlChunk(enc.encode('x'.repeat(8)), 4, 8)).toEqual({ lines: [], nextOffset: 4, blockedAt: 4 });
  });
});

describe('U6 local JSONL source on real files', () => {
  it('reads incrementally from the byte cursor; a line split mid-UTF-8 waits for its end', async () => {
    const p = freshPath();
    writeLines(p, [line.assistant()]);
    const c = cursor(p);
    await c.baseline();
    expect(c.marker.offset).toBeGreaterThan(0);
    expect(texts(await c.check())).toEqual([]); // nothing new

    const full = Buffer.from(`${line.human('привет, 世界 🎉 done')}\n`, 'utf8');
    const emoji = full.indexOf(Buffer.from('🎉'));
    appendFileSync(p, full.subarray(0, emoji + 2)); // cut inside the 4-byte emoji
    const before = c.marker.offset;
    expect(texts(await c.check())).toEqual([]);
    expect(c.marker.offset).toBe(before); // the partial line was not consumed
    appendFileSync(p, full.subarray(emoji + 2));
    const o = await c.check();
    expect(texts(o)).toEqual(['привет, 世界 🎉 done']);
    expect(c.marker.offset).toBe(before + full.length);
    expect(o.status === 'found' && o.position).toBe(`0.${before + full.length}`);
  });

  it('garbage and non-human lines are classified and passed over, human ones around them count', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const c = cursor(p);
    await c.baseline();
    appendLines(p, ['{broken json', line.toolResult(), line.human('first'), '', line.meta(), 'garbage ÿ', line.human('second')]);
    expect(texts(await c.check())).toEqual(['first', 'second']);
  });

  it('never reads more than the scan limit per check, and never skips a byte', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const c = cursor(p, 400);
    await c.baseline();
    const lines = Array.from({ length: 12 }, (_, i) => line.human(`turn number ${i}`));
    appendLines(p, lines);
    const seen: string[] = [];
    let checks = 0;
    let last = -1;
    while (c.marker.offset !== last) {
      last = c.marker.offset;
      const o = await c.check();
      checks++;
      seen.push(...(texts(o) as string[]));
      expect(c.marker.offset - last).toBeLessThanOrEqual(400);
    }
    expect(checks).toBeGreaterThan(3);
    expect(seen).toEqual(lines.map((_, i) => `turn number ${i}`));
  });

  it('U6 a line over the limit is read on across checks (at most 2x the limit each) and classified whole; lines after it follow', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const c = cursor(p, 256);
    await c.baseline();
    appendLines(p, [line.human('before')]);
    const start = Buffer.byteLength(`${line.human('before')}\n`);
    appendLines(p, [line.human('x'.repeat(1500)), line.human('after')]);
    expect(texts(await c.check())).toEqual(['before']);
    const o = await c.check();
    expect(o).toMatchObject({ status: 'found', turns: [], note: `reading a line longer than 256 bytes at offset ${start}: 256 bytes so far` });
    expect(o.status === 'found' && o.blocked).toBeUndefined();
    expect(c.marker).toMatchObject({ offset: start, long: { scanned: 256 } });
    const seen: string[] = [];
    for (let i = 0; i < 4 && seen.length < 2; i++) seen.push(...(texts(await c.check()) as string[]));
    expect(seen).toEqual(['x'.repeat(1500), 'after']);
  });

  it('U6 a 20 MiB line followed by a typed prompt: the prompt is reported within a bounded number of checks, memory bounded', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const c = cursor(p);
    await c.baseline();
    const image = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', data: 'A'.repeat(20 * 1024 * 1024) } }] }] }, toolUseResult: {} });
    appendLines(p, [image, line.human('typed after the screenshot')]);
    const M = LIMITS.upstreamScanMaxBytes;
    const bound = Math.ceil((Buffer.byteLength(image) - M) / (2 * M)) + 2; // one normal read, then 2 MiB per check
    const seen: string[] = [];
    let checks = 0;
    while (seen.length === 0 && checks < bound + 5) {
      const before = c.marker.offset + (c.marker as { long?: { scanned: number } }).long?.scanned!;
      const o = await c.check();
      checks++;
      seen.push(...(texts(o) as string[]));
      const after = c.marker.offset + ((c.marker as { long?: { scanned: number } }).long?.scanned ?? 0);
      if (!Number.isNaN(before)) expect(after - before).toBeLessThanOrEqual(2 * M);
    }
    expect(seen).toEqual(['typed after the screenshot']);
    expect(checks).toBeLessThanOrEqual(bound);
  });

  it('U6 the default limit is 1 MiB: a line of exactly the limit still fits in one read', async () => {
    const q = freshPath();
    writeFileSync(q, '');
    const d = cursor(q);
    await d.baseline();
    const exact = (text: string) => line.human(text, '2026-01-01T00:00:30.000Z', 'u-fixed');
    const body = 'z'.repeat(LIMITS.upstreamScanMaxBytes - Buffer.byteLength(exact('')) - 1);
    appendLines(q, [exact(body)]);
    expect(Buffer.byteLength(`${exact(body)}\n`)).toBe(LIMITS.upstreamScanMaxBytes);
    expect(texts(await d.check())).toEqual([body]);
  });

  it('truncation (file shorter than the cursor) starts a new epoch at offset 0 and reads the new bytes', async () => {
    const p = freshPath();
    writeLines(p, [line.assistant(), line.assistant(), line.assistant()]);
    const c = cursor(p);
    await c.baseline();
    truncateSync(p, 0);
    appendLines(p, [line.human('after truncate')]);
    const o = await c.check();
    expect(texts(o)).toEqual(['after truncate']);
    expect(c.marker.epoch).toBe(1);
    expect(o.status === 'found' && o.position).toBe(`1.${c.marker.offset}`);
    expect(o.status === 'found' && o.note).toMatch(/truncated/);
  });

  it('rotation (a different file at the path) starts a new epoch at 0, even when the new file is longer', async () => {
    const p = freshPath();
    writeLines(p, [line.assistant()]);
    const c = cursor(p);
    await c.baseline();
    const oldIdentity = c.marker.file;
    const q = `${p}.new`;
    writeLines(q, [line.assistant(), line.assistant(), line.assistant(), line.human('in the new file')]);
    renameSync(q, p);
    const o = await c.check();
    expect(texts(o)).toEqual(['in the new file']);
    expect(c.marker.epoch).toBe(1);
    expect(c.marker.file).not.toBe(oldIdentity);
  });

  it('missing = ENOENT or not a regular file; other failures are thrown (inconclusive)', async () => {
    const p = freshPath();
    writeLines(p, [line.assistant()]);
    const c = cursor(p);
    await c.baseline();
    unlinkSync(p);
    expect(await c.check()).toMatchObject({ status: 'missing', detail: 'ENOENT' });
    mkdirSync(p);
    expect(await c.check()).toMatchObject({ status: 'missing', detail: 'not a regular file' });
    rmSync(p, { recursive: true });
    const source = createClaudeJsonlSource();
    await expect(source.baseline(target(join(dir, 'nope.jsonl')))).rejects.toThrow(/not found/);
    expect(await source.check({ ...target(p), marker: 'junk' })).toMatchObject({ status: 'inconclusive' });
    await expect(source.check({ ...target(join(p, 'x')), marker: jsonlMarkerJson({ offset: 0, epoch: 0 }) })).resolves.toMatchObject({ status: 'missing' });
  });
});

describe('U6 long lines across a restart', () => {
  it('U6 a long line whose reader was lost (a restart) is read again from its start: never skipped', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const first = createClaudeJsonlSource({ scanMaxBytes: 128 });
    const target = { hostId: 'gateway:local', threadId: 't', ref: { filePath: p } };
    let marker: JsonValue = await first.baseline(target);
    appendLines(p, [line.human('y'.repeat(700)), line.human('next')]);
    for (let i = 0; i < 2; i++) {
      const o = await first.check({ ...target, marker });
      if (o.status === 'found') marker = o.nextMarker;
    }
    expect(marker).toMatchObject({ offset: 0, long: { scanned: 384 } });
    const restarted = createClaudeJsonlSource({ scanMaxBytes: 128 }); // no reader in memory
    const seen: string[] = [];
    for (let i = 0; i < 8 && seen.length < 2; i++) {
      const o = await restarted.check({ ...target, marker });
      if (o.status !== 'found') throw new Error(o.status);
      if (i === 0) expect(o.nextMarker).toMatchObject({ offset: 0, long: { scanned: 128 } }); // started over at the line
      seen.push(...o.turns.map((t) => t.text));
      marker = o.nextMarker;
    }
    expect(seen).toEqual(['y'.repeat(700), 'next']);
  });
});
