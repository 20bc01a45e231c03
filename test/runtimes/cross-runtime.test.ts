/**
 * One state file, five processes on four runtimes and three drivers: Node 20 + better-sqlite3
 * writes it, Node 22 + node:sqlite reopens and continues, Bun + bun:sqlite reopens and continues
 * (and prunes), then Node 20 + better-sqlite3 again, then Node 24 (the current LTS) + node:sqlite. Each reopening must see exactly what the last
 * process left (heads R5, events and their fields, cursors R20, pending notices rebuilt by R29,
 * the header pragmas), and sequences keep growing across all of them (R7).
 *
 * Node 22, Node 24 and Bun come from runtimes/node_modules (npm ci --prefix runtimes); CI installs them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangesSinceResponse, Notice } from '../../spec/index.js';
import { APPLICATION_ID, SCHEMA_VERSION } from '../../src/sqlite/index.js';
import { bundleEntry } from '../sqlite/bundle.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NODE22 = join(root, 'runtimes', 'node_modules', '.bin', 'node');
const NODE24 = join(root, 'runtimes', 'node_modules', 'node24', 'bin', 'node');
const BUN = join(root, 'runtimes', 'node_modules', '.bin', 'bun');
const present = existsSync(NODE22) && existsSync(NODE24) && existsSync(BUN);
const SKIP_REASON = 'runtimes/node_modules is absent: run `npm ci --prefix runtimes` to get Node 22, Node 24 and Bun';
if (!present) console.warn(`cross-runtime file test skipped: ${SKIP_REASON}`);

interface View {
  versions: number[];
  pending: Notice[][];
  changes: ChangesSinceResponse[];
  cursors: ({ L: number; N: number; M: number; provenance: string } | undefined)[];
  eventCount: number;
  file: { journalMode: string; userVersion: number; applicationId: number; integrity: string };
}
interface StepOutput {
  step: number;
  driver: string;
  runtime: string;
  opened: View;
  results: Record<string, unknown>;
  after: View;
  logs: unknown[];
}

// Indexes into the fixture's lists (cross-step.ts).
const [CHILD, PEER, ASTRAL, GLOBAL_OPS] = [0, 1, 2, 3];
const [PARENT_W, COORD_W, LATE_W] = [0, 1, 2];

describe.skipIf(!present)(`one state file across runtimes and drivers${present ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let dir: string;
  let script: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ssk-cross-'));
    script = await bundleEntry(join(root, 'test', 'runtimes', 'fixtures', 'cross-step.ts'), 'cross-step');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(script, { force: true });
  });

  function run(step: number, runtime: string, args: string[], driver: string): StepOutput {
    const r = spawnSync(runtime, [...args, script, join(dir, 'state.db'), String(step), driver], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `step ${step} on ${runtime}: ${r.stderr}`).toBe(0);
    const out = JSON.parse(r.stdout) as StepOutput;
    expect(out.driver).toBe(driver);
    expect(out.logs, `step ${step} logged storage failures`).toEqual([]);
    for (const v of [out.opened, out.after]) {
      expect(v.file).toEqual({ journalMode: 'wal', userVersion: SCHEMA_VERSION, applicationId: APPLICATION_ID, integrity: 'ok' });
      for (const c of v.cursors) if (c) expect(c.L <= c.N && c.N <= c.M, JSON.stringify(c)).toBe(true);
    }
    return out;
  }

  /** What a reopening process must see: the view left behind, after the R29 sweep (N := M on each pending cursor). */
  // R29: opening a file changes no cursor (v1's sweep set N := M here); the next runtime sees exactly what the last one left.
  const reopened = (v: View): View => v;
  const allSequences = (v: View) => v.changes.flatMap((c) => c.stateChanges.events.map((e) => e.sequence));
  const numbers = (xs: unknown) => xs as number[];

  it('Node 20/better-sqlite3 -> Node 22/node:sqlite -> Bun/bun:sqlite -> Node 20/better-sqlite3 -> Node 24/node:sqlite, each continuing where the last stopped', () => {
    // 1. Node 20, better-sqlite3: creates the file.
    const s1 = run(1, process.execPath, [], 'better-sqlite3');
    expect(s1.runtime).toBe(`node ${process.versions.node}`);
    expect(s1.opened.eventCount).toBe(0);
    expect(s1.results['drained']).toEqual([['agent:main:subagent:child', s1.results['spawn']]]); // watching since its spawn (R12)
    expect(s1.after.pending[PARENT_W]!.map((n) => n.lastSeenSequence)).toEqual([numbers(s1.results['records'])[0]]); // the frozen follow-up (R28)
    expect(s1.after.pending[COORD_W]).toHaveLength(1);
    expect(s1.after.eventCount).toBe(6);

    // 2. Node 22, node:sqlite: sees exactly what Node 20 left, pending notices included (R29).
    const s2 = run(2, NODE22, ['--disable-warning=ExperimentalWarning'], 'node:sqlite');
    expect(s2.runtime).toBe('node 22.23.5');
    expect(s2.opened).toEqual(reopened(s1.after));
    // R8 across drivers: the dedupe key written by better-sqlite3 returns that very event.
    expect(s2.results['dedupe']).toEqual(s1.after.changes[PEER]!.stateChanges.events[0]);
    const r2 = numbers(s2.results['records']);
    expect(Math.min(...r2)).toBeGreaterThan(Math.max(...allSequences(s1.after)));
    expect(r2).toEqual([...r2].sort((a, b) => a - b));
    expect(s2.results['drained']).toEqual([['agent:main:peer', 0]]);
    expect(s2.results['watch']).toEqual({ watched: true });
    expect(s2.after.changes[ASTRAL]!.stateChanges.events[0]!.sessionKey).toBe('agent:main:x\uD83D\uDE00');

    // 3. Bun, bun:sqlite: sees what Node 22 left; records, acks, deletes, then prunes under a cap.
    const s3 = run(3, BUN, [], 'bun:sqlite');
    expect(s3.runtime).toBe('bun 1.4.5');
    expect(s3.opened).toEqual(reopened(s2.after));
    const r3 = numbers(s3.results['records']);
    expect(Math.min(...r3)).toBeGreaterThan(Math.max(...r2));
    // PARENT's follow-up from step 1 (rebuilt twice since) is drained here, quoting its old watermark.
    expect(s3.results['drained']).toEqual([['agent:main:subagent:child', s1.after.pending[PARENT_W]![0]!.lastSeenSequence]]);
    expect(s3.opened.pending[LATE_W]).toEqual([]);
    expect(s3.after.pending[LATE_W]!.map((n) => n.lastSeenSequence)).toEqual([s3.opened.versions[CHILD]]);
    expect(s3.after.versions[GLOBAL_OPS]).toBe(0); // R51 on Bun
    const cap = s3.results['afterCap'] as { eventCount: number; child: ChangesSinceResponse['stateChanges'] };
    expect(cap.eventCount).toBe(s3.after.eventCount);
    expect(cap.child.historyGap).toBe(true); // R33, R42: the cap removed CHILD's oldest events
    expect(s3.after.changes[CHILD]!.stateChanges.earliestAvailableSequence).toBeGreaterThan(s1.after.changes[CHILD]!.stateChanges.events[1]!.sequence);

    // 4. Back on Node 20, better-sqlite3: the pruned file with Bun's watermarks reads back as Bun left it.
    const s4 = run(4, process.execPath, [], 'better-sqlite3');
    expect(s4.opened).toEqual(reopened(s3.after));
    const r4 = numbers(s4.results['records']);
    expect(Math.min(...r4)).toBeGreaterThan(Math.max(...r3));
    expect(s4.after.changes[CHILD]!.stateChanges.historyGap).toBe(true);
    expect(s4.after.versions[CHILD]).toBe(r4[0]);
    expect(s4.after.versions[ASTRAL]).toBe(r4[1]);
    // Every notice pending when Bun closed comes back on Node 20, frozen as it was (R24, R29), and is drained here.
    const drained = s4.results['drained'] as [string, number][][];
    expect(s4.opened.pending.flat().length).toBeGreaterThan(0);
    s4.opened.pending.forEach((pending, i) => expect(drained[i]).toEqual(expect.arrayContaining(pending.map((n) => [n.targetSessionKey, n.lastSeenSequence]))));

    // 5. Node 24, node:sqlite: reads what Node 20 left, keeps the sequence growing, raises a notice.
    const s5 = run(5, NODE24, ['--disable-warning=ExperimentalWarning'], 'node:sqlite');
    expect(s5.runtime).toMatch(/^node 24\./);
    expect(s5.opened).toEqual(reopened(s4.after));
    const r5 = numbers(s5.results['records']);
    expect(Math.min(...r5)).toBeGreaterThan(Math.max(...r4));
    expect(s5.results['watch']).toEqual({ watched: true });
    expect(s5.results['pending']).toContainEqual(['agent:main:peer', s5.opened.versions[PEER]]); // R22: from the watch on, not history
    expect(s5.after.versions[PEER]).toBe(r5[0]);
    expect(s5.after.versions[ASTRAL]).toBe(r5[1]);
  }, 120_000);
});
