/**
 * Child of long-line-memory.test.ts: the monitor's JSONL source checks a transcript from offset 0
 * until its end, as the monitor would across checks (a long line 2 MiB per check), in a fresh
 * process. Prints its human turns, checks and peak RSS (KiB) as JSON.
 */
import { statSync } from 'node:fs';
import { createClaudeJsonlSource } from '../../src/upstream/index.js';

const path = process.argv[2];
if (!path) throw new Error('usage: long-line-source-child <transcript>');
const source = createClaudeJsonlSource({ followCandidates: 0 });
const target = { hostId: 'gateway:local', threadId: 't', ref: { filePath: path } };
const size = statSync(path).size;
let marker: unknown = { offset: 0, epoch: 0 };
let turns = 0;
let checks = 0;
for (;;) {
  const o = await source.check({ ...target, marker: marker as never });
  checks++;
  if (o.status !== 'found') throw new Error(`check ${checks}: ${o.status}`);
  turns += o.turns.length;
  marker = o.nextMarker;
  const m = marker as { offset: number; long?: unknown };
  if (m.offset >= size && m.long === undefined) break;
  if (checks > 100_000) throw new Error('no progress');
}
process.stdout.write(JSON.stringify({ turns, checks, maxRssKiB: process.resourceUsage().maxRSS }));
