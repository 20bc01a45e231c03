import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import {
  HEAD_BYTES,
  SkeletonParser,
  assertJson,
  claudeDialect,
  classifyDialectLine,
  codexDialect,
  continuesConversation,
  followMarker,
  formatBytes,
  headToken,
  jsonlBaseline,
  jsonlMarkerJson,
  longReaderHeld,
  observeJsonlRead,
  parseJsonlMarker,
  planJsonlRead,
  scanJsonlChunk,
  type ClassifiedLine,
  type JsonlMarker,
  type LongLineCache,
  type LongLineEntry,
  type JsonValue,
  type Observation,
} from '../../src/core/upstream/index.js';
import { upstreamCommand } from '../../src/cli/upstream-scan.js';
import { createJsonlTranscriptSource } from '../../src/upstream/index.js';
import { line, tempDir } from './helpers.js';

const dir = tempDir('ssk-mut-jsonl-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stored marker is plain JSON: no key holds `undefined` (assertJson refuses it, JSON drops it). */
function plain(marker: JsonValue): JsonValue {
  assertJson(marker, 'marker');
  return marker;
}

/**
 * The pure half of the JSONL source (U6): how stored cursors decode, where a check reads, and what
 * a read turns into. Written against the mutants the first mutation run left alive (mutation/).
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const decode = (b: Uint8Array) => dec.decode(b);
const bytes = (lines: string[]) => enc.encode(lines.map((l) => `${l}\n`).join(''));
const sha16 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 16);

function memoryCache(): LongLineCache & { map: Map<string, LongLineEntry> } {
  const map = new Map<string, LongLineEntry>();
  return { map, get: (k) => map.get(k), set: (k, v) => void map.set(k, v), delete: (k) => void map.delete(k) };
}

const found = (o: Observation) => {
  if (o.status !== 'found') throw new Error(`expected found, got ${o.status}`);
  return o;
};

describe('U6 a stored JSONL cursor decodes strictly; corrupt parts are dropped, never guessed', () => {
  it('U6 a marker that is not an object, or whose offset is not a non-negative safe integer, is not a marker', () => {
    for (const bad of [null, 5, 'x', true, [], [{ offset: 1 }], {}, { offset: -1 }, { offset: 1.5 }, { offset: '10' }, { offset: 2 ** 53 }, { offset: Number.NaN }]) {
      expect(parseJsonlMarker(bad as never), JSON.stringify(bad)).toBeUndefined();
    }
    expect(parseJsonlMarker({ offset: 0 })).toEqual({ offset: 0, epoch: 0 });
    expect(parseJsonlMarker({ offset: 2 ** 53 - 1, epoch: 4 })).toEqual({ offset: 2 ** 53 - 1, epoch: 4 });
  });

  it('U6 a bad epoch reads as 0; a good one is kept', () => {
    for (const epoch of [-1, 1.5, '3', null, 2 ** 53]) expect(parseJsonlMarker({ offset: 3, epoch } as never)?.epoch).toBe(0);
    expect(parseJsonlMarker({ offset: 3, epoch: 0 })?.epoch).toBe(0);
    expect(parseJsonlMarker({ offset: 3, epoch: 9 })?.epoch).toBe(9);
  });

  it('U6 file, head, long, path, lineage and last are each kept only when well formed', () => {
    const good = { offset: 10, epoch: 2, file: '1:2', head: { len: 40, hash: 'abcd' }, long: { scanned: 7 }, path: '/t/next.jsonl', lineage: ['s1', 's2'], last: 'u9' };
    expect(parseJsonlMarker(good)).toEqual(good);
    const bad = parseJsonlMarker({
      offset: 10,
      epoch: 2,
      file: 12,
      head: { len: -1, hash: 'abcd' },
      long: { scanned: 'many' },
      path: '',
      lineage: 'not-a-list',
      last: 5,
    });
    expect(bad).toEqual({ offset: 10, epoch: 2 });
    expect(parseJsonlMarker({ offset: 1, head: { len: 4, hash: 7 } })).toEqual({ offset: 1, epoch: 0 });
    expect(parseJsonlMarker({ offset: 1, head: 'abcd' })).toEqual({ offset: 1, epoch: 0 });
    expect(parseJsonlMarker({ offset: 1, head: { len: 0, hash: '' } })).toEqual({ offset: 1, epoch: 0, head: { len: 0, hash: '' } });
    expect(parseJsonlMarker({ offset: 1, long: { scanned: 0 } })).toEqual({ offset: 1, epoch: 0, long: { scanned: 0 } });
    expect(parseJsonlMarker({ offset: 1, long: 3 })).toEqual({ offset: 1, epoch: 0 });
    expect(parseJsonlMarker({ offset: 1, long: { scanned: -2 } })).toEqual({ offset: 1, epoch: 0 });
    expect(parseJsonlMarker({ offset: 1, file: '' })).toEqual({ offset: 1, epoch: 0, file: '' });
    expect(parseJsonlMarker({ offset: 1, last: '' })).toEqual({ offset: 1, epoch: 0, last: '' });
  });

  it('U6 a stored lineage keeps only its strings, and only the 8 newest', () => {
    expect(parseJsonlMarker({ offset: 0, lineage: ['a', 1, null, 'b', { x: 1 }] })?.lineage).toEqual(['a', 'b']);
    const ten = Array.from({ length: 10 }, (_, i) => `s${i}`);
    expect(parseJsonlMarker({ offset: 0, lineage: ten })?.lineage).toEqual(ten.slice(2));
    expect(parseJsonlMarker({ offset: 0, lineage: [] })?.lineage).toEqual([]);
  });

  it('U6 the stored form round-trips; an empty lineage is not stored', () => {
    const m: JsonlMarker = { offset: 5, epoch: 1, file: 'd:i', head: { len: 3, hash: 'h' }, long: { scanned: 2 }, path: '/p', lineage: ['x'], last: 'u' };
    const json = jsonlMarkerJson(m);
    expect(json).toEqual(m);
    expect(parseJsonlMarker(json)).toEqual(m);
    expect(plain(jsonlMarkerJson({ offset: 5, epoch: 1, lineage: [] }))).toStrictEqual({ offset: 5, epoch: 1 });
    // A copy: changing the marker later does not change what was stored.
    (m.lineage as string[]).push('y');
    m.head!.len = 99;
    expect(json['lineage']).toEqual(['x']);
    expect(json['head']).toEqual({ len: 3, hash: 'h' });
  });
});

describe('U6 head token, baseline and formatBytes', () => {
  it('U6 the head token hashes at most the first 4096 bytes (16 hex digits of SHA-256)', () => {
    const big = enc.encode('z'.repeat(HEAD_BYTES + 10));
    expect(HEAD_BYTES).toBe(4096);
    expect(headToken(big)).toEqual({ len: 4096, hash: sha16(big.subarray(0, 4096)) });
    const small = enc.encode('abc');
    expect(headToken(small)).toEqual({ len: 3, hash: sha16(small) });
  });

  it('U3 U6 the baseline is the end of the last complete line', () => {
    const facts = { size: 100, identity: '1:2' };
    // No tail: the size.
    expect(plain(jsonlBaseline(facts))).toStrictEqual({ offset: 100, epoch: 0, file: '1:2' });
    // The tail's last newline at index 5 of 10 tail bytes: 100 - 10 + 6.
    expect(jsonlBaseline(facts, undefined, enc.encode('abcd\n\nefgh'))).toMatchObject({ offset: 96 });
    // The tail's only newline is its first byte: the line after it is incomplete.
    expect(jsonlBaseline(facts, undefined, enc.encode('\nabc'))).toMatchObject({ offset: 97 });
    // A tail ending in a newline: the size.
    expect(jsonlBaseline(facts, undefined, enc.encode('abcdefghi\n'))).toMatchObject({ offset: 100 });
    // The whole file without a newline: nothing is complete yet, so 0.
    expect(jsonlBaseline({ size: 4, identity: 'i' }, undefined, enc.encode('abcd'))).toMatchObject({ offset: 0 });
    // A tail without a newline that is not the whole file: the line started before the tail; the size.
    expect(jsonlBaseline(facts, undefined, enc.encode('abcd'))).toMatchObject({ offset: 100 });
    // An empty tail or one longer than the file is ignored.
    expect(jsonlBaseline(facts, undefined, new Uint8Array())).toMatchObject({ offset: 100 });
    expect(jsonlBaseline({ size: 3, identity: 'i' }, undefined, enc.encode('a\nbcd'))).toMatchObject({ offset: 3 });
    // A tail exactly the file's size is used.
    expect(jsonlBaseline({ size: 5, identity: 'i' }, undefined, enc.encode('a\nbcd'))).toMatchObject({ offset: 2 });
  });

  it('U3 U6 the baseline carries the head token only when head bytes were read', () => {
    const head = enc.encode('{"a":1}\n');
    expect(jsonlBaseline({ size: 8, identity: 'i' }, head)).toEqual({ offset: 8, epoch: 0, file: 'i', head: { len: 8, hash: sha16(head) } });
    expect(plain(jsonlBaseline({ size: 0, identity: 'i' }, new Uint8Array()))).toStrictEqual({ offset: 0, epoch: 0, file: 'i' });
    expect(plain(jsonlBaseline({ size: 0, identity: 'i' }, new Uint8Array(), new Uint8Array()))).toStrictEqual({ offset: 0, epoch: 0, file: 'i' });
  });

  it('U9 sizes in status notes read as MiB, KiB or bytes', () => {
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3 MiB');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1536 * 1024)).toBe('1536 KiB');
    expect(formatBytes(1536)).toBe('1536 bytes');
    expect(formatBytes(100)).toBe('100 bytes');
    expect(formatBytes(0)).toBe('0 bytes');
  });
});

describe('U6 where a check reads (planJsonlRead)', () => {
  const facts = (size: number, identity = '1:1') => ({ size, identity });

  it('U6 rotation: another file identity restarts at 0 in a new epoch; a marker without identity does not rotate', () => {
    const m: JsonlMarker = { offset: 50, epoch: 3, file: '1:1' };
    expect(planJsonlRead(m, facts(80, '1:2'), { maxBytes: 1000 })).toEqual({ from: 0, length: 80, lineStart: 0, epoch: 4, identity: '1:2', reset: 'rotated' });
    expect(planJsonlRead({ offset: 50, epoch: 3 }, facts(80, '9:9'), { maxBytes: 1000 })).toEqual({ from: 50, length: 30, lineStart: 50, epoch: 3, identity: '9:9' });
  });

  it('U6 truncation: a file shorter than the cursor restarts; one exactly at the cursor does not', () => {
    const m: JsonlMarker = { offset: 50, epoch: 0, file: '1:1' };
    expect(planJsonlRead(m, facts(49), { maxBytes: 1000 })).toMatchObject({ from: 0, length: 49, epoch: 1, reset: 'truncated' });
    expect(planJsonlRead(m, facts(50), { maxBytes: 1000 })).toEqual({ from: 50, length: 0, lineStart: 50, epoch: 0, identity: '1:1' });
  });

  it('U6 a reset reads at most maxBytes from 0', () => {
    expect(planJsonlRead({ offset: 50, epoch: 0, file: 'a' }, facts(5000, 'b'), { maxBytes: 1000 })).toMatchObject({ from: 0, length: 1000, lineStart: 0 });
    expect(planJsonlRead({ offset: 50, epoch: 0, file: 'a' }, facts(5000, 'b'))).toMatchObject({ length: 5000 });
    expect(planJsonlRead({ offset: 50, epoch: 0, file: 'a' }, facts(LIMITS.upstreamScanMaxBytes + 1, 'b'))).toMatchObject({ length: LIMITS.upstreamScanMaxBytes });
  });

  it('U6 replacement: the first bytes changed, or the file no longer has head.len bytes', () => {
    const head = enc.encode('{"first":"line"}\n');
    const m: JsonlMarker = { offset: 17, epoch: 1, file: '1:1', head: headToken(head) };
    // Same first bytes, the file grew: no reset.
    const grown = enc.encode('{"first":"line"}\n{"second":1}\n');
    expect(planJsonlRead(m, facts(30), { headBytes: grown, maxBytes: 1000 })).toEqual({ from: 17, length: 13, lineStart: 17, epoch: 1, identity: '1:1' });
    // Same length, other content.
    const other = enc.encode('{"other":"line"}\n{"second":1}\n');
    expect(planJsonlRead(m, facts(30), { headBytes: other, maxBytes: 1000 })).toMatchObject({ from: 0, epoch: 2, reset: 'replaced' });
    // Fewer head bytes than recorded (the start is shorter, content unknown): replaced.
    expect(planJsonlRead({ ...m, offset: 0 }, facts(30), { headBytes: head.subarray(0, 10), maxBytes: 1000 })).toMatchObject({ reset: 'replaced' });
    // Without head bytes now, or without a recorded head, identity and size decide.
    expect(planJsonlRead(m, facts(30), { maxBytes: 1000 }).reset).toBeUndefined();
    expect(planJsonlRead({ offset: 17, epoch: 1, file: '1:1' }, facts(30), { headBytes: other, maxBytes: 1000 }).reset).toBeUndefined();
  });

  it('U6 a held long line continues after what was scanned, up to 2 x maxBytes; a lost one starts over at its start', () => {
    const m: JsonlMarker = { offset: 100, epoch: 2, file: '1:1', long: { scanned: 300 } };
    expect(planJsonlRead(m, facts(10_000), { maxBytes: 1000, longReaderHeld: true })).toEqual({ from: 400, length: 2000, lineStart: 100, epoch: 2, identity: '1:1', long: { scanned: 300 } });
    expect(planJsonlRead(m, facts(1400), { maxBytes: 1000, longReaderHeld: true })).toMatchObject({ from: 400, length: 1000 });
    // The file shrank to inside the scanned part (not below the cursor): nothing to read, no negative length.
    expect(planJsonlRead(m, facts(200), { maxBytes: 1000, longReaderHeld: true })).toMatchObject({ from: 400, length: 0 });
    expect(planJsonlRead(m, facts(10_000), { maxBytes: 1000, longReaderHeld: false })).toEqual({ from: 100, length: 1000, lineStart: 100, epoch: 2, identity: '1:1' });
    expect(planJsonlRead(m, facts(10_000), { maxBytes: 1000 })).toMatchObject({ from: 100, length: 1000 });
    expect(planJsonlRead({ offset: 100, epoch: 2 }, facts(10_000), { maxBytes: 1000, longReaderHeld: true })).toMatchObject({ from: 100, length: 1000 });
  });

  it('U6 whether the reader is held: same epoch, offset and scanned count, and a cache at all', () => {
    const cache = memoryCache();
    const parser = new SkeletonParser(decode);
    cache.set('1:1', { epoch: 2, offset: 100, scanned: 300, parser });
    const m: JsonlMarker = { offset: 100, epoch: 2, file: '1:1', long: { scanned: 300 } };
    expect(longReaderHeld(cache, m, '1:1')).toBe(true);
    expect(longReaderHeld(undefined, m, '1:1')).toBe(false);
    expect(longReaderHeld(cache, { offset: 100, epoch: 2 }, '1:1')).toBe(false);
    expect(longReaderHeld(cache, m, '1:2')).toBe(false);
    expect(longReaderHeld(cache, { ...m, epoch: 3 }, '1:1')).toBe(false);
    expect(longReaderHeld(cache, { ...m, offset: 101 }, '1:1')).toBe(false);
    expect(longReaderHeld(cache, { ...m, long: { scanned: 299 } }, '1:1')).toBe(false);
  });
});

describe('U6 complete lines only (scanJsonlChunk)', () => {
  it('U6 a chunk without a newline blocks exactly when it fills the read (length >= maxBytes)', () => {
    expect(scanJsonlChunk(enc.encode('x'.repeat(7)), 0, 8)).toEqual({ lines: [], nextOffset: 0 });
    expect(scanJsonlChunk(enc.encode('x'.repeat(8)), 3, 8)).toEqual({ lines: [], nextOffset: 3, blockedAt: 3 });
    expect(scanJsonlChunk(enc.encode('x'.repeat(9)), 3, 8).blockedAt).toBe(3);
    expect(scanJsonlChunk(new Uint8Array(), 3, 8)).toEqual({ lines: [], nextOffset: 3 });
    expect(scanJsonlChunk(enc.encode('x'.repeat(LIMITS.upstreamScanMaxBytes - 1)), 0).blockedAt).toBeUndefined();
    expect(scanJsonlChunk(enc.encode('x'.repeat(LIMITS.upstreamScanMaxBytes)), 0).blockedAt).toBe(0);
  });

  it('U6 a chunk whose only newline is its first byte holds one empty line', () => {
    const s = scanJsonlChunk(enc.encode('\nab'), 5, 3);
    expect(s.lines.map((l) => [l.offset, l.bytes.length])).toEqual([[5, 0]]);
    expect(s.nextOffset).toBe(6);
    expect(s.blockedAt).toBeUndefined();
  });

  it('U6 empty lines are lines; a leading newline gives an empty first line', () => {
    const s = scanJsonlChunk(enc.encode('\n\nab\n'), 5, 100);
    expect(s.lines.map((l) => [l.offset, decode(l.bytes)])).toEqual([[5, ''], [6, ''], [7, 'ab']]);
    expect(s.nextOffset).toBe(10);
  });
});

describe('U6 what one read becomes (observeJsonlRead)', () => {
  const facts = { size: 10_000, identity: '1:1', mtimeMs: 1_700_000_000_123 };
  const plan = (from: number, length: number, over: object = {}) => ({ from, length, lineStart: from, epoch: 0, identity: '1:1', ...over });
  const prev: JsonlMarker = { offset: 0, epoch: 0, file: '1:1' };

  it('U5 U6 the position is <epoch>.<offset after the last complete line>, the source time is the file mtime', () => {
    const chunk = bytes([line.human('one'), line.assistant()]);
    const o = found(observeJsonlRead(plan(40, chunk.length, { epoch: 3 }), enc.encode(`${dec.decode(chunk)}{"partial`), facts, decode, { offset: 40, epoch: 3, file: '1:1' }));
    expect(o.position).toBe(`3.${40 + chunk.length}`);
    expect(o.nextMarker).toMatchObject({ offset: 40 + chunk.length, epoch: 3, file: '1:1' });
    expect(o.sourceTime).toBe(facts.mtimeMs);
    expect(o.turns).toEqual([{ text: 'one', occurredAt: Date.parse('2026-01-01T00:00:30.000Z') }]);
    expect('note' in o).toBe(false);
    expect('blocked' in o).toBe(false);
    const noMtime = found(observeJsonlRead(plan(0, chunk.length), chunk, { size: 10_000, identity: '1:1' }, decode, prev));
    expect('sourceTime' in noMtime).toBe(false);
  });

  it('U6 a turn carries its images, and no image count when it has none', () => {
    const img = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image' }, { type: 'image' }] }, timestamp: 'not a time' });
    const o = found(observeJsonlRead(plan(0, 0), bytes([img, 'null', '[1]', '"s"', line.human('plain')]), facts, decode, prev));
    expect(o.turns).toStrictEqual([{ text: 'look', images: 2 }, { text: 'plain', occurredAt: Date.parse('2026-01-01T00:00:30.000Z') }]);
  });

  it('U6 the next marker keeps the path and lineage; last is the uuid of the last line that has one', () => {
    const withUuid = JSON.stringify({ type: 'assistant', uuid: 'a-7', message: { role: 'assistant', content: 'ok' } });
    const noUuid = JSON.stringify({ type: 'summary', summary: 's' });
    const previous: JsonlMarker = { offset: 0, epoch: 1, file: '1:1', path: '/next.jsonl', lineage: ['old'], last: 'u-0' };
    const o = found(observeJsonlRead(plan(0, 0, { epoch: 1 }), bytes([withUuid, noUuid]), facts, decode, previous));
    expect(o.nextMarker).toStrictEqual({ offset: bytes([withUuid, noUuid]).length, epoch: 1, file: '1:1', path: '/next.jsonl', lineage: ['old'], last: 'a-7' });
    // Nothing with a uuid read: the previous last stays.
    const quiet = found(observeJsonlRead(plan(0, 0, { epoch: 1 }), bytes([noUuid]), facts, decode, previous));
    expect(quiet.nextMarker).toMatchObject({ last: 'u-0' });
    // A uuid that is empty or longer than 128 characters names nothing.
    const odd = [JSON.stringify({ type: 'summary', uuid: '' }), JSON.stringify({ type: 'summary', uuid: 'u'.repeat(129) }), JSON.stringify({ type: 'summary', uuid: 7 })];
    expect(found(observeJsonlRead(plan(0, 0, { epoch: 1 }), bytes(odd), facts, decode, previous)).nextMarker).toMatchObject({ last: 'u-0' });
    const max = JSON.stringify({ type: 'summary', uuid: 'v'.repeat(128) });
    expect(found(observeJsonlRead(plan(0, 0, { epoch: 1 }), bytes([max]), facts, decode, previous)).nextMarker).toMatchObject({ last: 'v'.repeat(128) });
  });

  it('U6 after a reset the previous last record and head no longer apply', () => {
    const previous: JsonlMarker = { offset: 90, epoch: 1, file: '1:0', head: { len: 4, hash: 'beef' }, last: 'u-old' };
    const o = found(observeJsonlRead(plan(0, 0, { epoch: 2, reset: 'rotated' }), bytes([JSON.stringify({ type: 'summary' })]), facts, decode, previous));
    expect(plain(o.nextMarker)).toStrictEqual({ offset: JSON.stringify({ type: 'summary' }).length + 1, epoch: 2, file: '1:1' });
    expect(o.note).toBe('file rotated; reading from offset 0 (epoch 2)');
    // No reset: the previous head is kept when no head bytes were read now.
    const kept = found(observeJsonlRead(plan(90, 0, { epoch: 1 }), new Uint8Array(), facts, decode, previous));
    expect(plain(kept.nextMarker)).toStrictEqual({ offset: 90, epoch: 1, file: '1:1', head: { len: 4, hash: 'beef' }, last: 'u-old' });
    // Head bytes read now replace it.
    const head = enc.encode('abcdef');
    const fresh = found(observeJsonlRead(plan(90, 0, { epoch: 1 }), new Uint8Array(), facts, decode, previous, { headBytes: head }));
    expect(fresh.nextMarker).toMatchObject({ head: { len: 6, hash: sha16(head) } });
    const empty = found(observeJsonlRead(plan(90, 0, { epoch: 1 }), new Uint8Array(), facts, decode, previous, { headBytes: new Uint8Array() }));
    expect(empty.nextMarker).toMatchObject({ head: { len: 4, hash: 'beef' } });
  });

  it('U10 records of a session in the lineage are copied history, as are those of classify.copiedFrom', () => {
    const rec = (sessionId: string, text: string) => JSON.stringify({ type: 'user', sessionId, message: { role: 'user', content: text } });
    const chunk = bytes([rec('old', 'copied'), rec('older', 'copied too'), rec('now', 'typed')]);
    const o = found(observeJsonlRead(plan(0, 0), chunk, facts, decode, { ...prev, lineage: ['old'] }, { classify: { copiedFrom: ['older'] } }));
    expect(o.turns.map((t) => t.text)).toEqual(['typed']);
    // Without a lineage, copiedFrom alone applies.
    const p = found(observeJsonlRead(plan(0, 0), chunk, facts, decode, prev, { classify: { copiedFrom: ['older'] } }));
    expect(p.turns.map((t) => t.text)).toEqual(['copied', 'typed']);
    expect(p.nextMarker).not.toHaveProperty('lineage');
  });

  it('U6 every classified line is reported with its offset, length and uuid (the scan command)', () => {
    const a = JSON.stringify({ type: 'user', uuid: 'x1', message: { role: 'user', content: 'hi' } });
    const b = 'garbage';
    const seen: ClassifiedLine[] = [];
    observeJsonlRead(plan(10, 0), bytes([a, b]), facts, decode, prev, { onLine: (l) => seen.push(l) });
    expect(seen).toStrictEqual([
      { offset: 10, length: a.length, result: { human: true, verdict: 'human', reason: 'fallback', text: 'hi', images: 0 }, uuid: 'x1' },
      { offset: 10 + a.length + 1, length: b.length, result: { human: false, verdict: 'meta', reason: 'not-json' } },
    ]);
  });

  it('U6 a classified line carries its uuid only when the record has one', () => {
    expect(classifyDialectLine(JSON.stringify({ type: 'summary', uuid: 'u1' }), claudeDialect, {})).toStrictEqual({ result: { human: false, verdict: 'meta', reason: 'record', detail: 'summary' }, uuid: 'u1' });
    expect(classifyDialectLine(JSON.stringify({ type: 'summary' }), claudeDialect, {})).toStrictEqual({ result: { human: false, verdict: 'meta', reason: 'record', detail: 'summary' } });
    expect(classifyDialectLine('null', claudeDialect, {})).toStrictEqual({ result: { human: false, verdict: 'meta', reason: 'record' } });
  });

  it('U6 the dialect decides how lines classify (Codex)', () => {
    const ev = JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'codex prompt' } });
    const copy = JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'codex prompt' }] } });
    expect(found(observeJsonlRead(plan(0, 0), bytes([ev, copy]), facts, decode, prev, { dialect: codexDialect })).turns.map((t) => t.text)).toEqual(['codex prompt']);
    expect(found(observeJsonlRead(plan(0, 0), bytes([ev]), facts, decode, prev)).turns).toEqual([]);
  });

  it('U6 a full read without a newline and no reader cache blocks at the line start, never skips', () => {
    const chunk = enc.encode('x'.repeat(64));
    const o = found(observeJsonlRead(plan(200, 64), chunk, facts, decode, { offset: 200, epoch: 0, file: '1:1' }, { maxBytes: 64 }));
    expect(o.blocked).toBe('blocked: line exceeds 64 bytes at offset 200');
    expect(o.nextMarker).toMatchObject({ offset: 200 });
    expect(o.position).toBe('0.200');
    expect('note' in o).toBe(false);
    // One byte short of the limit: a partial line that waits, not a block.
    const short = found(observeJsonlRead(plan(200, 63), chunk.subarray(0, 63), facts, decode, { offset: 200, epoch: 0, file: '1:1' }, { maxBytes: 64 }));
    expect(short.blocked).toBeUndefined();
    expect(plain(short.nextMarker)).toStrictEqual({ offset: 200, epoch: 0, file: '1:1' });
  });

  /** A user record of exactly `size` bytes (without its newline). */
  const userOfSize = (text: string, size: number) => {
    const bare = JSON.stringify({ type: 'user', message: { role: 'user', content: text } });
    return JSON.stringify({ type: 'user', message: { role: 'user', content: text + 'y'.repeat(size - bare.length) } });
  };

  it('U6 U9 with a cache, a long line is read across checks and finished whole; lines after it follow in the same read', () => {
    const cache = memoryCache();
    const M = 64;
    const long = userOfSize('long ', 193);
    const after = [JSON.stringify({ type: 'user', message: { role: 'user', content: 'after' } }), JSON.stringify({ type: 'user', message: { role: 'user', content: 'and more' } })];
    const all = bytes([long, ...after]);
    // First read: a full chunk with no newline.
    const first = found(observeJsonlRead(plan(0, M), all.subarray(0, M), facts, decode, prev, { maxBytes: M, longLines: cache }));
    expect(first.turns).toEqual([]);
    expect(first.nextMarker).toEqual({ offset: 0, epoch: 0, file: '1:1', long: { scanned: M } });
    expect(first.note).toBe('reading a line longer than 64 bytes at offset 0: 64 bytes so far');
    expect(first.position).toBe('0.0');
    expect(cache.map.get('1:1')).toMatchObject({ epoch: 0, offset: 0, scanned: M });
    // Second read, still no newline.
    const m1 = parseJsonlMarker(first.nextMarker)!;
    const p2 = planJsonlRead(m1, facts, { maxBytes: M, longReaderHeld: longReaderHeld(cache, m1, '1:1') });
    expect(p2).toMatchObject({ from: M, length: 2 * M, long: { scanned: M } });
    const second = found(observeJsonlRead(p2, all.subarray(p2.from, p2.from + p2.length), facts, decode, m1, { maxBytes: M, longLines: cache }));
    expect(second.turns).toEqual([]);
    expect(second.nextMarker).toEqual({ offset: 0, epoch: 0, file: '1:1', long: { scanned: 3 * M } });
    expect(second.note).toBe('reading a line longer than 64 bytes at offset 0: 192 bytes so far');
    expect(second.position).toBe('0.0');
    // Third read reaches the newline: the line is classified whole, and the lines after it too.
    const m2 = parseJsonlMarker(second.nextMarker)!;
    const p3 = planJsonlRead(m2, facts, { maxBytes: M, longReaderHeld: longReaderHeld(cache, m2, '1:1') });
    const lines: ClassifiedLine[] = [];
    const third = found(observeJsonlRead(p3, all.subarray(p3.from, p3.from + p3.length), facts, decode, m2, { maxBytes: M, longLines: cache, onLine: (l) => lines.push(l) }));
    expect(third.turns.map((t) => t.text)).toEqual([`long ${'y'.repeat(193 - JSON.stringify({ type: 'user', message: { role: 'user', content: 'long ' } }).length)}`, 'after', 'and more']);
    expect(lines.map((l) => [l.offset, l.length])).toEqual([[0, 193], [194, after[0]!.length], [195 + after[0]!.length, after[1]!.length]]);
    expect(cache.map.size).toBe(0);
    expect(plain(third.nextMarker)).toStrictEqual({ offset: all.length, epoch: 0, file: '1:1' });
    expect(third.position).toBe(`0.${all.length}`);
    expect(third.blocked).toBeUndefined();
    expect('note' in third).toBe(false);
  });

  it('U6 after a long line ends, a partial line behind it in the same read waits; it does not start another long line', () => {
    const cache = memoryCache();
    const M = 64;
    const all = bytes([userOfSize('long ', 100), userOfSize('next ', 400)]);
    const parser = new SkeletonParser(decode);
    parser.push(all.subarray(0, M));
    cache.set('1:1', { epoch: 0, offset: 0, scanned: M, parser });
    // 128 bytes from 64: the newline at 100, then 91 bytes of the next line without a newline (> M).
    const o = found(observeJsonlRead(plan(M, 2 * M, { lineStart: 0, long: { scanned: M } }), all.subarray(M, 3 * M), facts, decode, prev, { maxBytes: M, longLines: cache }));
    expect(o.turns).toHaveLength(1);
    expect(plain(o.nextMarker)).toStrictEqual({ offset: 101, epoch: 0, file: '1:1' });
    expect(cache.map.size).toBe(0);
    expect(o.blocked).toBeUndefined();
    expect('note' in o).toBe(false);
  });

  it('U6 a finished long line that is not JSON is passed over as not-json', () => {
    const cache = memoryCache();
    const parser = new SkeletonParser(decode);
    parser.push(enc.encode('{"type":"user", broken'));
    cache.set('1:1', { epoch: 0, offset: 0, scanned: 22, parser });
    const seen: ClassifiedLine[] = [];
    const o = found(observeJsonlRead(plan(22, 10, { lineStart: 0, long: { scanned: 22 } }), enc.encode('xx\n'), facts, decode, prev, { longLines: cache, onLine: (l) => seen.push(l) }));
    expect(o.turns).toEqual([]);
    expect(seen).toEqual([{ offset: 0, length: 24, result: { human: false, verdict: 'meta', reason: 'not-json', detail: 'long line' } }]);
    expect(o.nextMarker).toMatchObject({ offset: 25 });
  });

  it('U4 U6 a long line whose text was cut is marked truncated; its uuid becomes last', () => {
    const cache = memoryCache();
    const limits = { stringBytes: 16, totalBytes: 64, smallString: 8, maxDepth: 8, maxItems: 8 };
    const parser = new SkeletonParser(decode, limits);
    const rec = JSON.stringify({ type: 'user', uuid: 'long-1', message: { role: 'user', content: 'a fairly long typed text' } });
    parser.push(enc.encode(rec));
    cache.set('1:1', { epoch: 0, offset: 0, scanned: rec.length, parser });
    const o = found(observeJsonlRead(plan(rec.length, 5, { lineStart: 0, long: { scanned: rec.length } }), enc.encode('\n'), facts, decode, prev, { longLines: cache }));
    expect(o.turns).toEqual([{ text: 'a fairly long ty', truncated: true }]);
    expect(o.nextMarker).toMatchObject({ last: 'long-1' });
    // Not cut: no truncated flag.
    const cache2 = memoryCache();
    const p2 = new SkeletonParser(decode);
    p2.push(enc.encode(rec));
    cache2.set('1:1', { epoch: 0, offset: 0, scanned: rec.length, parser: p2 });
    const o2 = found(observeJsonlRead(plan(rec.length, 5, { lineStart: 0, long: { scanned: rec.length } }), enc.encode('\n'), facts, decode, prev, { longLines: cache2 }));
    expect(o2.turns).toEqual([{ text: 'a fairly long typed text' }]);
  });

  it('U6 a plan that continues a long line the cache no longer holds is an error, not a skip', () => {
    expect(() => observeJsonlRead(plan(22, 10, { lineStart: 0, long: { scanned: 22 } }), enc.encode('x\n'), facts, decode, prev, { longLines: memoryCache() })).toThrow(/long-line reader missing/);
    expect(() => observeJsonlRead(plan(22, 10, { lineStart: 0, long: { scanned: 22 } }), enc.encode('x\n'), facts, decode, prev)).toThrow(/long-line reader missing/);
  });
});

describe('U6 resume: which file continues the conversation', () => {
  const head = (lines: string[], tail = '') => enc.encode(lines.map((l) => `${l}\n`).join('') + tail);

  it('U6 the session id or the last record named as parent or leaf makes a continuation', () => {
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'S' })]), decode, 'S', undefined)).toBe(true);
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'T', parentUuid: 'L' })]), decode, 'S', 'L')).toBe(true);
    expect(continuesConversation(head([JSON.stringify({ type: 'summary', leafUuid: 'L' })]), decode, 'S', 'L')).toBe(true);
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'T', parentUuid: 'M', leafUuid: 'N' })]), decode, 'S', 'L')).toBe(false);
  });

  it('U6 without a last record, a record with no parent is not a continuation', () => {
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'T' })]), decode, 'S', undefined)).toBe(false);
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'T', parentUuid: null })]), decode, 'S', undefined)).toBe(false);
  });

  it('U6 garbage lines are skipped, later lines still count; non-object records and sub-agent records never count', () => {
    expect(continuesConversation(head(['not json', '', JSON.stringify({ sessionId: 'S' })]), decode, 'S', undefined)).toBe(true);
    expect(continuesConversation(head(['["S"]', 'null', '"S"', JSON.stringify({ sessionId: 'S', isSidechain: true })]), decode, 'S', undefined)).toBe(false);
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'S', isSidechain: true }), JSON.stringify({ sessionId: 'S', isSidechain: false })]), decode, 'S', undefined)).toBe(true);
  });

  it('U6 only complete lines of the head count; a head without a newline proves nothing', () => {
    expect(continuesConversation(enc.encode(JSON.stringify({ sessionId: 'S' })), decode, 'S', undefined)).toBe(false);
    expect(continuesConversation(head([JSON.stringify({ sessionId: 'T' })], JSON.stringify({ sessionId: 'S' })), decode, 'S', undefined)).toBe(false);
    expect(continuesConversation(new Uint8Array(), decode, 'S', undefined)).toBe(false);
    // A complete record without its newline (trailing space) is still incomplete.
    expect(continuesConversation(enc.encode(`${JSON.stringify({ sessionId: 'S' })}  `), decode, 'S', undefined)).toBe(false);
    expect(continuesConversation(enc.encode(`${JSON.stringify({ sessionId: 'S' })}\n`), decode, 'S', undefined)).toBe(true);
  });

  it('U6 following starts a new epoch at 0 on the new file and adds the old session to the lineage (8 newest kept)', () => {
    const prevMarker: JsonlMarker = { offset: 500, epoch: 4, file: '1:1', head: { len: 4, hash: 'h' }, last: 'L', lineage: ['a'] };
    expect(followMarker(prevMarker, '/d/new.jsonl', '1:9', 'S')).toEqual({ offset: 0, epoch: 5, file: '1:9', path: '/d/new.jsonl', lineage: ['a', 'S'], last: 'L' });
    expect(plain(followMarker({ offset: 1, epoch: 0 }, '/n', 'i', 'S'))).toStrictEqual({ offset: 0, epoch: 1, file: 'i', path: '/n', lineage: ['S'] });
    const eight = Array.from({ length: 8 }, (_, i) => `s${i}`);
    expect(followMarker({ offset: 1, epoch: 0, lineage: eight }, '/n', 'i', 'S')['lineage']).toEqual([...eight.slice(1), 'S']);
  });
});

describe('U6 dialects at work', () => {
  it('U6 Codex rollouts are not followed into a newer file (codex resume appends to its rollout); Claude transcripts are', async () => {
    for (const [dialect, follows] of [[codexDialect, false], [claudeDialect, true]] as const) {
      const sub = join(dir, dialect.name);
      mkdirSync(sub);
      const oldPath = join(sub, 'S.jsonl');
      writeFileSync(oldPath, `${JSON.stringify({ type: 'session_meta', sessionId: 'S', uuid: 'r1' })}\n`);
      const source = createJsonlTranscriptSource({ kind: 'k', dialect });
      const target = { hostId: 'h', threadId: 't', ref: { filePath: oldPath } };
      const marker = await source.baseline(target);
      writeFileSync(join(sub, 'T.jsonl'), `${JSON.stringify({ type: 'session_meta', sessionId: 'S', uuid: 'r2' })}\n`);
      const o = await source.check({ ...target, marker });
      expect(o.status === 'found' && (o.nextMarker as { path?: string }).path, dialect.name).toBe(follows ? join(sub, 'T.jsonl') : undefined);
    }
  });

  it('U6 the scan command names the dialect it read with', async () => {
    const p = join(dir, 'scan.jsonl');
    for (const [content, name] of [[`${line.human('hi')}\n`, 'claude'], [`${JSON.stringify({ type: 'session_meta', payload: { id: 'x' } })}\n`, 'codex']] as const) {
      writeFileSync(p, content);
      const out: string[] = [];
      const code = await upstreamCommand(['scan', p, '--json'], { out: (l) => void out.push(l), err: () => undefined });
      expect(code).toBe(0);
      expect((JSON.parse(out.at(-1)!) as { summary: { dialect: string } }).summary.dialect).toBe(name);
    }
  });
});
