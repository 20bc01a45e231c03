import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from '../../scripts/cli-build.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import type { BenchGroup } from './context.js';

/**
 * hook-start: a command hook runs before every answer a person waits for (T9), in every CLI, for
 * every hook event. Measured from start to exit of `node cli.js hook codex` on a UserPromptSubmit
 * payload (a watched session: the database opens, the turn is recorded, the notices are read),
 * against a bare `node -e 0` start on the same machine. The CLI is bundled as dist/cli.js is
 * (scripts/cli-build.ts: the hook's program one file, typebox inside, storage drivers outside).
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');


function timeRuns(n: number, args: string[], input: string | undefined, expectOut: (stdout: string) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { input, encoding: 'utf8', cwd: root });
    out.push(performance.now() - t0);
    if (r.status !== 0 || !expectOut(r.stdout)) throw new Error(`hook-start: ${args.join(' ')} exited ${String(r.status)}: ${r.stderr.slice(0, 300)}`);
  }
  return out;
}

export const hookGroup: BenchGroup = {
  group: 'hook-start',
  async run(ctx): Promise<CaseResult[]> {
    const outdir = join(root, 'node_modules', '.cache', 'ssk-bench-cli');
    await bundleCli(root, outdir, { extension: '.mjs', bundleSdk: true });
    const cli = join(outdir, 'cli.mjs');
    const db = ctx.ws.file('hook-start.db');
    const session = '0190a5f2-7c44-7d6e-9a7e-1f2b3c4d5e6f';
    const payload = (turn: number) => JSON.stringify({ session_id: session, turn_id: `turn-${turn}`, transcript_path: null, cwd: root, hook_event_name: 'UserPromptSubmit', model: 'gpt-5.5-codex', permission_mode: 'default', prompt: 'hello' });
    // The session is watched, so each prompt is recorded and its notices read (the busy path).
    spawnSync(process.execPath, [cli, 'hook', 'codex', '--db', db], { input: JSON.stringify({ session_id: session, transcript_path: null, cwd: root, hook_event_name: 'SessionStart', model: 'gpt-5.5-codex', permission_mode: 'default', source: 'startup' }), encoding: 'utf8' });
    const n = ctx.plan.hookStartRuns;
    ctx.progress(`hook-start: ${n} hook runs and ${n} bare node starts`);
    const warm = () => timeRuns(2, ['-e', '0'], undefined, () => true);
    warm();
    const bare: number[] = [];
    const hook: number[] = [];
    // Interleaved, so a burst of load on the machine hits both sides alike.
    for (let i = 0; i < n; i++) {
      bare.push(...timeRuns(1, ['-e', '0'], undefined, () => true));
      hook.push(...timeRuns(1, [cli, 'hook', 'codex', '--db', db], payload(i), () => true));
    }
    const baseline = makeResult({ id: 'hook-start/node', group: 'hook-start', label: 'bare `node -e 0` start to exit (baseline)', size: '1', unit: 'start', unitsPerOp: 1, latency: summarize(bare) });
    const result = makeResult({ id: 'hook-start/codex-prompt', group: 'hook-start', label: '`hook codex` on a UserPromptSubmit, start to exit', size: '1', unit: 'hook', unitsPerOp: 1, latency: summarize(hook), baselineId: baseline.id });
    ctx.progress(`hook-start: median ${result.latency.p50Ms.toFixed(0)} ms against ${baseline.latency.p50Ms.toFixed(0)} ms for a bare node`);
    return [baseline, result];
  },
};
