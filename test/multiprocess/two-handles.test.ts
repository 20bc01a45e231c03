/**
 * Issue 14's first symptom, as a test (R20, R26, R27): a human turn recorded through one handle on
 * a file must show in another handle's pendingNotices at once, with no restart and no reopen, and
 * a drain through either handle takes it for both. Handles: two connections in this process, and
 * a second OS process that records while this one keeps its store open.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStateStore, StateEvent } from '../../spec/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { bundleEntry } from '../sqlite/bundle.js';
import { TEST_DRIVER } from '../sqlite/helpers.js';
import type { RecordConfig } from './fixtures/worker.js';

const T0 = Date.UTC(2026, 0, 1);
const W = 'agent:main:main';
const TARGET = 'agent:main:subagent:child';
const turn = { sessionKey: TARGET, agentId: 'main', kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram', watchers: [W] };

let dir: string;
let worker: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-two-handles-'));
  worker = await bundleEntry(join(import.meta.dirname, 'fixtures', 'worker.ts'), 'mp-worker');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(worker, { force: true });
});

let n = 0;
function open(path: string): SessionStateStore {
  return createSqliteStore({ path, driver: TEST_DRIVER, now: () => T0, logger: silentLogger });
}

function recordInChild(path: string): Promise<StateEvent> {
  const config: RecordConfig = { mode: 'record', path, sessionKey: TARGET, watchers: [W], now: T0 };
  return new Promise((resolve, reject) => {
    const child = fork(worker, [JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (err += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as StateEvent) : reject(new Error(`worker exited ${code}: ${err}`))));
  });
}

describe('two handles on one SQLite file', () => {
  it('R26: a turn recorded through handle A is pending in handle B at once; R27: a drain through B takes it for A too', async () => {
    const path = join(dir, `two-${n++}.db`);
    const a = open(path);
    const b = open(path);
    try {
      const e = (await a.record(turn))!;
      const expected = [{ watcherSessionKey: W, targetSessionKey: TARGET, targetAgentId: 'main', lastSeenSequence: 0 }];
      const pick = (ns: { watcherSessionKey: string; targetSessionKey: string; targetAgentId: string; lastSeenSequence: number }[]) =>
        ns.map(({ watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence }) => ({ watcherSessionKey, targetSessionKey, targetAgentId, lastSeenSequence }));
      expect(pick(await a.pendingNotices(W))).toEqual(expected);
      expect(pick(await b.pendingNotices(W)), 'handle B must see the notice raised through A without a restart').toEqual(expected);
      expect(await b.pendingNotices(W)).toEqual(await a.pendingNotices(W)); // byte-identical text (R24)
      expect(pick(await b.drainNotices(W))).toEqual(expected);
      expect(await a.pendingNotices(W), 'after B drained it, A must not hold the notice any more').toEqual([]);
      expect(await a.drainNotices(W), 'each notice goes to exactly one drainer').toEqual([]);
      // The next turn is a fresh notice quoting the new watermark, visible from both sides again.
      await b.record(turn);
      expect(pick(await a.pendingNotices(W))).toEqual([{ ...expected[0]!, lastSeenSequence: e.sequence }]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('R26: a turn recorded by another OS process is pending in this process\'s open store without a reopen', async () => {
    const path = join(dir, `two-${n++}.db`);
    const here = open(path);
    try {
      expect(await here.pendingNotices(W)).toEqual([]);
      const e = await recordInChild(path);
      expect(e.sequence).toBeGreaterThan(0);
      const pending = await here.pendingNotices(W);
      expect(pending.map((x) => [x.targetSessionKey, x.lastSeenSequence]), 'the other process\'s notice must be visible here').toEqual([[TARGET, 0]]);
      expect((await here.drainNotices(W)).length).toBe(1);
      expect(await here.pendingNotices(W)).toEqual([]);
    } finally {
      await here.close();
    }
  }, 60_000);
});
