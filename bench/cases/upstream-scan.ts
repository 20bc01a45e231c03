import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMITS } from '../../spec/index.js';
import {
  claudeDialect,
  longReaderHeld,
  observeJsonlRead,
  parseJsonlMarker,
  planJsonlRead,
  type JsonlMarker,
  type LongLineEntry,
} from '../../src/core/upstream/index.js';
import { mulberry32 } from '../../src/shared/prng.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import type { BenchGroup, CaseContext } from './context.js';

const MiB = 1024 * 1024;
const decoder = new TextDecoder();
const decode = (b: Uint8Array) => decoder.decode(b);

/**
 * A Claude Code-shaped transcript of about `mib` MiB: typed prompts, queued commands, assistant
 * text and tool calls, tool results of a few KiB, task notifications, meta records, and at 2 MiB
 * and then every 16 MiB a pasted screenshot line of 3 MiB (the long-line reader's case). Written in pieces, so
 * building it never holds the file in memory.
 */
function writeTranscript(path: string, mib: number): { bytes: number; typed: number } {
  const fd = openSync(path, 'w');
  const rand = mulberry32(7);
  let bytes = 0;
  let typed = 0;
  let n = 0;
  const filler = (len: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(len / 27)).slice(0, len);
  const base = () => ({ parentUuid: `u${n}`, isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: 'bench', version: '2.1.30', uuid: `u${++n}`, timestamp: '2026-03-01T10:00:00.000Z' });
  try {
    let buf: string[] = [];
    let pending = 0;
    let nextImage = 2 * MiB;
    while (bytes < mib * MiB) {
      const r = rand();
      let rec: unknown;
      if (bytes >= nextImage) {
        nextImage += 16 * MiB;
        rec = { ...base(), type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'what is wrong here?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(3 * MiB) } }] }, origin: { kind: 'human' }, promptSource: 'typed' };
        typed++;
      } else if (r < 0.05) {
        rec = { ...base(), type: 'user', message: { role: 'user', content: `please ${filler(40 + Math.floor(rand() * 200))}` }, origin: { kind: 'human' }, promptSource: 'typed' };
        typed++;
      } else if (r < 0.07) {
        rec = { ...base(), type: 'attachment', attachment: { type: 'queued_command', commandMode: 'prompt', prompt: `also ${filler(60)}`, origin: { kind: 'human' } } };
        typed++;
      } else if (r < 0.4) {
        rec = { ...base(), type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: filler(200 + Math.floor(rand() * 2000)) }] } };
      } else if (r < 0.6) {
        rec = { ...base(), type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'Read', input: { file_path: '/work/app/src/x.ts' } }] } };
      } else if (r < 0.9) {
        rec = { ...base(), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: filler(500 + Math.floor(rand() * 8000)) }] }, toolUseResult: { stdout: 'ok' } };
      } else if (r < 0.95) {
        rec = { ...base(), type: 'user', message: { role: 'user', content: '<task-notification><status>completed</status></task-notification>' }, origin: { kind: 'task-notification' }, promptSource: 'system' };
      } else {
        rec = { ...base(), type: 'user', isMeta: true, message: { role: 'user', content: filler(300) } };
      }
      const line = `${JSON.stringify(rec)}\n`;
      buf.push(line);
      pending += line.length;
      bytes += Buffer.byteLength(line);
      if (pending > 4 * MiB) {
        writeSync(fd, buf.join(''));
        buf = [];
        pending = 0;
      }
    }
    writeSync(fd, buf.join(''));
  } finally {
    closeSync(fd);
  }
  return { bytes, typed };
}

/**
 * One transcript line of `mib` MiB (a pasted screenshot's base64) between two typed prompts: the
 * long-line reader's worst case, memory-wise. Written in pieces; returns its typed prompts.
 */
function writeLongLine(path: string, mib: number): number {
  const fd = openSync(path, 'w');
  try {
    const typed = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, origin: { kind: 'human' }, uuid: text, timestamp: '2026-03-01T10:00:00.000Z' })}\n`;
    writeSync(fd, typed('before'));
    writeSync(fd, '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"what is wrong here?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"');
    const block = Buffer.alloc(8 * MiB, 'A');
    for (let left = mib * MiB; left > 0; left -= block.length) writeSync(fd, block, 0, Math.min(block.length, left));
    writeSync(fd, `"}}]},"origin":{"kind":"human"},"uuid":"img","timestamp":"2026-03-01T10:00:01.000Z"}\n`);
    writeSync(fd, typed('after'));
  } finally {
    closeSync(fd);
  }
  return 3;
}

/**
 * The monitor's scan: the core cursor, classifier and long-line reader over 1 MiB reads. With
 * `freshReads` every read gets its own buffer, as the source adapter does (a reused buffer would
 * hide a reader that keeps views of past reads alive).
 */
export function scanWithCore(path: string, onPeak: () => void, freshReads = false): number {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd, { bigint: true });
    const facts = { size: Number(st.size), identity: `${st.dev}:${st.ino}` };
    const cache = new Map<string, LongLineEntry>();
    const longLines = { get: (k: string) => cache.get(k), set: (k: string, v: LongLineEntry) => void cache.set(k, v), delete: (k: string) => void cache.delete(k) };
    const buffer = Buffer.alloc(2 * LIMITS.upstreamScanMaxBytes);
    let marker: JsonlMarker = { offset: 0, epoch: 0, file: facts.identity };
    let turns = 0;
    for (let reads = 0; ; reads++) {
      const plan = planJsonlRead(marker, facts, { longReaderHeld: longReaderHeld(longLines, marker, facts.identity) });
      if (plan.length === 0) break;
      const into = freshReads ? Buffer.alloc(plan.length) : buffer;
      const got = readSync(fd, into, 0, plan.length, plan.from);
      const obs = observeJsonlRead(plan, into.subarray(0, got), facts, decode, marker, { dialect: claudeDialect, longLines });
      if (obs.status !== 'found') throw new Error('scan did not find the file');
      turns += obs.turns.length;
      marker = parseJsonlMarker(obs.nextMarker)!;
      if (reads % 8 === 0) onPeak();
    }
    if (marker.offset !== facts.size) throw new Error(`scan stopped at ${marker.offset} of ${facts.size}`);
    return turns;
  } finally {
    closeSync(fd);
  }
}

/** The physical limit of reading a JSONL file: the same 1 MiB reads, split on newlines, nothing parsed. */
function rawLineSplit(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(LIMITS.upstreamScanMaxBytes);
    let lines = 0;
    for (let at = 0; at < size; ) {
      const got = readSync(fd, buffer, 0, buffer.length, at);
      for (let i = buffer.indexOf(10); i >= 0 && i < got; i = buffer.indexOf(10, i + 1)) lines++;
      at += got;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/** What any classifier that parses records pays: the same reads and split, plus decode + JSON.parse per line. */
function parseEveryLine(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(4 * LIMITS.upstreamScanMaxBytes);
    let parsed = 0;
    let carry = Buffer.alloc(0);
    for (let at = 0; at < size; ) {
      const got = readSync(fd, buffer, 0, buffer.length, at);
      at += got;
      const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, got)]) : buffer.subarray(0, got);
      let start = 0;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
        JSON.parse(decode(chunk.subarray(start, i)));
        parsed++;
        start = i + 1;
      }
      carry = Buffer.from(chunk.subarray(start));
    }
    return parsed;
  } finally {
    closeSync(fd);
  }
}

/**
 * upstream-scan: the upstream monitor reading a large Claude Code transcript from offset 0 (what
 * a check does after a replacement, or `upstream scan` on a user's file), against a raw
 * line split of the same file with the same reads. MB/s both ways, and the resident memory the
 * scan adds at its peak (long lines included): it must stay bounded whatever the file size.
 */
export const upstreamScanGroup: BenchGroup = {
  group: 'upstream-scan',
  run(ctx: CaseContext): CaseResult[] {
    const { plan, ws } = ctx;
    const mib = plan.upstreamScanMiB;
    const path = ws.file('transcript').replace(/\.db$/u, '.jsonl');
    ctx.progress(`upstream-scan: writing a ${mib} MiB transcript`);
    const { bytes, typed } = writeTranscript(path, mib);
    const core: number[] = [];
    const raw: number[] = [];
    const parse: number[] = [];
    let rssGrowth = 0;
    try {
      for (let round = 0; round < plan.upstreamScanRounds; round++) {
        ctx.gc();
        const before = process.memoryUsage().rss;
        let peak = before;
        const t0 = performance.now();
        const turns = scanWithCore(path, () => {
          peak = Math.max(peak, process.memoryUsage().rss);
        });
        core.push(performance.now() - t0);
        peak = Math.max(peak, process.memoryUsage().rss);
        rssGrowth = Math.max(rssGrowth, peak - before);
        if (turns !== typed) throw new Error(`scan counted ${turns} human turns, the transcript has ${typed}`);
        const t1 = performance.now();
        rawLineSplit(path);
        raw.push(performance.now() - t1);
        const t2 = performance.now();
        parseEveryLine(path);
        parse.push(performance.now() - t2);
        const rate = (ms: number) => (bytes / MiB / (ms / 1000)).toFixed(0);
        ctx.progress(`upstream-scan: round ${round + 1}/${plan.upstreamScanRounds}: core ${rate(core.at(-1)!)} MiB/s, raw split ${rate(raw.at(-1)!)} MiB/s, split+parse ${rate(parse.at(-1)!)} MiB/s, rss +${(rssGrowth / MiB).toFixed(1)} MiB`);
      }
    } catch (error) {
      ws.remove(path);
      throw error;
    }
    // RSS in a fresh process: this one already grew while writing the file, which would hide the scan's own growth.
    const child = JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', join(dirname(fileURLToPath(import.meta.url)), '../lib/upstream-scan-child.ts'), path], { encoding: 'utf8' }),
    ) as { rssBefore: number; maxRss: number; turns: number };
    ws.remove(path);
    if (child.turns !== typed) throw new Error(`child scan counted ${child.turns} human turns, the transcript has ${typed}`);
    const childGrowth = child.maxRss - child.rssBefore;
    ctx.progress(`upstream-scan: fresh process: rss ${(child.rssBefore / MiB).toFixed(1)} MiB before, peak ${(child.maxRss / MiB).toFixed(1)} MiB (+${(childGrowth / MiB).toFixed(1)} MiB)`);
    // U6: one line of several hundred MiB (3x the transcript size, at least 64 MiB), a fresh
    // buffer per read as the adapter has: the reader's memory must not grow with the line.
    const longMiB = Math.max(64, 3 * mib);
    const longPath = ws.file('long-line').replace(/\.db$/u, '.jsonl');
    ctx.progress(`upstream-scan: writing one ${longMiB} MiB line`);
    const longTyped = writeLongLine(longPath, longMiB);
    let longChild: { rssBefore: number; maxRss: number; turns: number };
    try {
      longChild = JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', join(dirname(fileURLToPath(import.meta.url)), '../lib/upstream-scan-child.ts'), longPath, 'fresh-reads'], { encoding: 'utf8' }),
      ) as { rssBefore: number; maxRss: number; turns: number };
    } finally {
      ws.remove(longPath);
    }
    if (longChild.turns !== longTyped) throw new Error(`long-line scan counted ${longChild.turns} human turns, the file has ${longTyped}`);
    const longGrowth = longChild.maxRss - longChild.rssBefore;
    ctx.progress(`upstream-scan: ${longMiB} MiB line, fresh process: peak ${(longChild.maxRss / MiB).toFixed(1)} MiB (+${(longGrowth / MiB).toFixed(1)} MiB)`);
    const sizeLabel = `${mib} MiB`;
    const units = bytes / MiB;
    const baseline = makeResult({ id: 'upstream-scan/raw-split', group: 'upstream-scan', label: 'raw 1 MiB reads + newline split (baseline)', size: sizeLabel, unit: 'MiB', unitsPerOp: units, latency: summarize(raw) });
    const subject = makeResult({
      id: 'upstream-scan/core',
      group: 'upstream-scan',
      label: 'monitor scan: cursor + classify + long-line reader',
      size: sizeLabel,
      unit: 'MiB',
      unitsPerOp: units,
      latency: summarize(core),
      baselineId: baseline.id,
      extra: {
        mibPerSec: units / (summarize(core).p50Ms / 1000),
        rawMibPerSec: units / (summarize(raw).p50Ms / 1000),
        parseMibPerSec: units / (summarize(parse).p50Ms / 1000),
        // The stable comparison: the scan against decode + JSON.parse of every line (what parsing costs anyway).
        ratioVsParse: summarize(parse).p50Ms / summarize(core).p50Ms,
        // Peak resident memory of a fresh process scanning the file, minus its resident memory before the scan.
        rssGrowthMiB: childGrowth / MiB,
        inProcessRssGrowthMiB: rssGrowth / MiB,
        // The same, for one line of longLineMiB (U6: bounded whatever the line's length).
        longLineMiB: longMiB,
        longLineRssGrowthMiB: longGrowth / MiB,
        humanTurns: typed,
      },
      notes: 'one op = a whole scan of the file from offset 0; rssGrowthMiB = peak RSS of a fresh process during one scan minus its RSS before it; longLineRssGrowthMiB = the same for a file with one line of longLineMiB',
    });
    return [subject, baseline];
  },
};
