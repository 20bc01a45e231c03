import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findQwen } from '../agents/binaries.js';
import { QWEN_RECORD_SCRIPT, qwenCase, recordQwenPayloads } from './qwen-record.js';

/**
 * Writes test/hook/qwen-payloads/ from a run of the pinned Qwen Code (T56): the first payload of
 * each case, as the binary sent it, with the throwaway sandbox's folder renamed to one fixed path
 * so the files do not change from run to run. `npx tsx test/hook/record-qwen-payloads.ts`
 */
const found = findQwen();
if (!found.ok) throw new Error(found.reason);
const recording = await recordQwenPayloads(found.binary);
const dir = join(import.meta.dirname, 'qwen-payloads');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
const seen = new Set<string>();
for (const payload of recording.payloads) {
  const name = qwenCase(payload);
  if (seen.has(name)) continue;
  seen.add(name);
  const text = JSON.stringify(payload, null, 2)
    .replace(/\/tmp\/ssk-qwen-record-[A-Za-z0-9]+/g, '/tmp/ssk-qwen-record')
    .replace(/-tmp-ssk-qwen-record-[A-Za-z0-9]+-/g, '-tmp-ssk-qwen-record-');
  writeFileSync(join(dir, `${name}.json`), `${text}\n`);
}
writeFileSync(join(dir, 'recorded-with.json'), `${JSON.stringify({ package: found.binary.packageName, version: recording.version, script: QWEN_RECORD_SCRIPT }, null, 2)}\n`);
console.log(`${seen.size} payloads from ${found.binary.packageName} ${recording.version} in ${recording.ms} ms`);
