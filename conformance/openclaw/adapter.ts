/**
 * The OpenClaw adapter: a process that serves the conformance wire protocol (PROTOCOL.md W1-W8)
 * over OpenClaw's own compiled session-state functions, so the suite judges the code OpenClaw
 * ships. Run by `session-state-kit conformance --target openclaw` under the Node OpenClaw needs:
 *
 *   node adapter.js --dist <openclaw>/dist --version <v> --profile raw|fronted
 *
 * stdout carries only responses; anything else a module prints goes to stderr.
 */
import { accessSync, constants, mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serveWire } from '../wire-server.js';
import { loadOpenClawApi } from './api.js';
import { openClawStores, type Profile } from './store.js';

const { values } = parseArgs({ options: { dist: { type: 'string' }, version: { type: 'string' }, profile: { type: 'string' } } });
if (values.dist === undefined || values.version === undefined || (values.profile !== 'raw' && values.profile !== 'fronted')) {
  process.stderr.write('usage: adapter --dist <openclaw dist dir> --version <version> --profile raw|fronted\n');
  process.exit(2);
}
const profile: Profile = values.profile;

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

// W1: the responses own stdout; a module that prints (a logger, a warning) is moved to stderr.
const respond = (chunk: string) => void writeSync(1, chunk);
process.stdout.write = ((chunk: string | Uint8Array) => process.stderr.write(chunk)) as typeof process.stdout.write;

// Memory-backed when the machine has it: OpenClaw syncs every commit, and a state folder lives one case.
const root = mkdtempSync(join(process.env['SSK_OPENCLAW_STATE_ROOT'] ?? (writable('/dev/shm') ? '/dev/shm' : tmpdir()), 'ssk-openclaw-'));
try {
  const api = await loadOpenClawApi(values.dist, values.version);
  const stores = openClawStores(api, profile, root);
  // W4: what OpenClaw has no counterpart for; the suite then judges everything else.
  await serveWire((options) => stores.create(options), { input: process.stdin, output: { write: respond } }, `openclaw ${values.version} (${profile} profile, session-state-kit adapter)`, stores.sharing, { lacks: ['limits', 'noticeLink', 'unwatch', 'ambientWatch', 'recordMany'] });
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 3;
} finally {
  rmSync(root, { recursive: true, force: true });
}
