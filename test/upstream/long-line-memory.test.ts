import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { upstreamCommand } from '../../src/cli/upstream-scan.js';
import { DEFAULT_SKELETON_LIMITS, SkeletonParser } from '../../src/core/upstream/index.js';
import { useBuiltCli } from '../cli/helpers.js';
import { line, tempDir } from './helpers.js';

/**
 * U6: the long-line reader's memory is bounded whatever the line's length: about one read plus
 * the skeleton. Checked on a line of several hundred MiB, in a child process (its peak RSS),
 * against the same command on a short line.
 */
const dir = tempDir('ssk-longmem-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MiB = 1024 * 1024;
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** A Claude Code user record carrying `dataBytes` of base64 image data, then one typed line. */
function writeImageLine(path: string, dataBytes: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"see the screenshot"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"');
    const block = Buffer.alloc(8 * MiB, 'A');
    for (let left = dataBytes; left > 0; left -= block.length) writeSync(fd, block, 0, Math.min(block.length, left));
    writeSync(fd, `"}}]},"uuid":"big","timestamp":"2026-01-01T00:00:00.000Z"}\n${line.human('after the image')}\n`);
  } finally {
    closeSync(fd);
  }
}

// Reports the child's peak RSS (KiB) on stderr as it exits, without touching the CLI.
const REPORT = 'data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(2,"\\nmaxRSS="+process.resourceUsage().maxRSS+"\\n"))';

/** The monitor's source checking the file until its end, in a fresh process (long-line-source-child.ts). */
function sourcePeak(path: string): { turns: number; checks: number; maxRssMiB: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'long-line-source-child.ts'), path], { encoding: 'utf8', timeout: 170_000 });
  const r = JSON.parse(out) as { turns: number; checks: number; maxRssKiB: number };
  return { turns: r.turns, checks: r.checks, maxRssMiB: r.maxRssKiB / 1024 };
}

function scanPeak(cli: string, path: string): Promise<{ code: number | null; maxRssMiB: number; summary: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REPORT, cli, 'upstream', 'scan', path, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /maxRSS=(\d+)/u.exec(err);
      if (!rss) return reject(new Error(`no maxRSS in stderr: ${err}`));
      const summary = (JSON.parse(out.trim().split('\n').at(-1)!) as { summary: Record<string, unknown> }).summary;
      resolve({ code, maxRssMiB: Number(rss[1]) / 1024, summary });
    });
  });
}

describe('U6 the long-line reader keeps memory bounded', () => {
  const cli = useBuiltCli();

  it('U6 a 384 MiB line is read with a peak RSS within 64 MiB of a 4 MiB line\'s, and classified', async () => {
    const small = join(dir, 'small.jsonl');
    const big = join(dir, 'big.jsonl');
    writeImageLine(small, 4 * MiB);
    writeImageLine(big, 384 * MiB);
    try {
      const a = await scanPeak(cli.path(), small);
      const b = await scanPeak(cli.path(), big);
      for (const r of [a, b]) {
        expect(r.code).toBe(0);
        expect(r.summary).toMatchObject({ lines: 2, humanTurns: 2 });
      }
      console.log(`upstream scan peak RSS: ${a.maxRssMiB.toFixed(1)} MiB (4 MiB line), ${b.maxRssMiB.toFixed(1)} MiB (384 MiB line)`);
      // Holding the line would cost at least its 384 MiB.
      expect(b.maxRssMiB - a.maxRssMiB, `peak RSS ${a.maxRssMiB.toFixed(0)} MiB (4 MiB line) vs ${b.maxRssMiB.toFixed(0)} MiB (384 MiB line)`).toBeLessThan(64);
      // The monitor's source, check after check (2 MiB of the line each): the same bound.
      const c = sourcePeak(small);
      const d = sourcePeak(big);
      console.log(`monitor source peak RSS: ${c.maxRssMiB.toFixed(1)} MiB (4 MiB line), ${d.maxRssMiB.toFixed(1)} MiB (384 MiB line, ${d.checks} checks)`);
      expect([c.turns, d.turns]).toEqual([2, 2]);
      expect(d.checks).toBeGreaterThan(384 / 2);
      expect(d.maxRssMiB - c.maxRssMiB, 'monitor source').toBeLessThan(64);
    } finally {
      rmSync(big, { force: true });
    }
  }, 180_000);
});

describe('U6 the skeleton keeps a bounded number of values and cut strings', () => {
  it('U6 a line of 100,000 keys keeps maxValues of them and says it was cut', () => {
    const p = new SkeletonParser(decode);
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',');
    p.push(new TextEncoder().encode(`{"type":"user",${keys}}`));
    const r = p.end();
    expect(r.ok).toBe(true);
    expect(r.truncated).toBe(true);
    const value = r.value as Record<string, unknown>;
    expect(Object.keys(value)).toHaveLength(DEFAULT_SKELETON_LIMITS.maxValues!);
    expect(value['type']).toBe('user');
  });

  it('U6 a long text after the first long line in one read is cut at 64 KiB like every long line\'s', async () => {
    const path = join(dir, 'two-long.jsonl');
    // Line 1 (1.5 MiB) starts the long-line reader; line 2 (1.2 MB of typed text) ends inside the same 2 MiB read.
    writeFileSync(path, `${line.human('y'.repeat(1_500_000))}\n${line.human('z'.repeat(1_200_000))}\n${line.human('short')}\n`);
    const out: string[] = [];
    expect(await upstreamCommand(['scan', path, '--json'], { out: (l) => void out.push(l), err: () => undefined })).toBe(0);
    const rows = out.map((l) => JSON.parse(l) as { text?: string; verdict?: string });
    expect(rows.slice(0, 3).map((r) => r.verdict)).toEqual(['human', 'human', 'human']);
    expect(rows[0]!.text!.length).toBeLessThanOrEqual(64 * 1024);
    expect(rows[1]!.text!.length).toBeLessThanOrEqual(64 * 1024);
    expect(rows[1]!.text!.startsWith('zzz')).toBe(true);
    expect(rows[2]!.text).toBe('short');
  });
});
