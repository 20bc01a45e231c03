import { execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { upstreamCommand } from '../../src/cli/upstream-scan.js';
import { runCli, useBuiltCli } from '../cli/helpers.js';
import { detectDialect } from '../../src/cli/upstream-scan.js';
import { line, tempDir } from './helpers.js';

const dir = tempDir('ssk-scan-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixtures = join(import.meta.dirname, '../../conformance/upstream/vectors/transcripts');

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await upstreamCommand(args, { out: (l) => void out.push(l), err: (t) => void err.push(t) }).catch((e: { exitCode?: number; message: string }) => {
    err.push(e.message);
    return e.exitCode ?? -1;
  });
  return { code, out, err };
}

describe('session-state-kit upstream scan', () => {
  it('U4 U6 prints each line with its verdict (human / own echo / machine / meta / waiting) and why', async () => {
    const p = join(dir, 'a.jsonl');
    writeFileSync(p, `${line.human('hello')}\n${line.assistant()}\n${line.human('/review 12')}\n${line.meta()}\n{"type":"user"`);
    const { code, out } = await run(['scan', p, '--own', '/review 12']);
    expect(code).toBe(0);
    const rows = out.slice(1, 6).map((l) => l.trim().split(/\s{2,}/u));
    expect(rows.map((r) => r[2])).toEqual(['human', 'machine', 'own echo', 'meta', 'waiting']);
    expect(rows.map((r) => r[3])).toEqual(['fallback', 'assistant', 'fallback', 'meta', 'incomplete']);
    expect(out.at(-1)).toBe('\n5 line(s): 1 human turn(s), 1 own echo(es), 1 machine, 1 meta, 1 waiting');
  });

  it('U6 --json gives one object per line and a summary; the Codex dialect is detected', async () => {
    const { code, out } = await run(['scan', join(fixtures, 'codex-cli.jsonl'), '--json', '--own', 'continue']);
    expect(code).toBe(0);
    const rows = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.at(-1)).toEqual({ summary: { dialect: 'codex', bytes: expect.any(Number), lines: 18, humanTurns: 2, ownEchoes: 1, machine: 6, meta: 9, waiting: 0 } });
    expect(rows.filter((r) => r['verdict'] === 'human').map((r) => r['text'])).toEqual(['Refactor the request parser', 'here is the failing output']);
    expect(rows.filter((r) => r['reason'] === 'model-input').every((r) => r['verdict'] === 'meta')).toBe(true);
  });

  it('U6 a line over 1 MiB is classified through the long-line reader, not skipped', async () => {
    const p = join(dir, 'long.jsonl');
    writeFileSync(p, `${line.human('x'.repeat(3 * 1024 * 1024))}\n${line.human('after')}\n`);
    const { out } = await run(['scan', p, '--json']);
    const rows = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.slice(0, 2).map((r) => r['verdict'])).toEqual(['human', 'human']);
    expect(rows[1]).toMatchObject({ text: 'after' });
  });

  it('U6 --dialect auto reads a pre-envelope Codex rollout as Codex and says how it chose', async () => {
    const p = join(dir, 'old-codex.jsonl');
    const user = (text: string) => JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    writeFileSync(
      p,
      [
        JSON.stringify({ id: '5973b6c0-94b8-487b-a530-2aeb6098ae0e', timestamp: '2025-05-07T17:24:21.123Z', instructions: null }),
        JSON.stringify({ record_type: 'state' }),
        user('<environment_context>\n<cwd>/w</cwd>\n</environment_context>'),
        user('add a health endpoint'),
        JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
        '',
      ].join('\n'),
    );
    const json = await run(['scan', p, '--json']);
    expect(JSON.parse(json.out.at(-1)!)).toMatchObject({ summary: { dialect: 'codex', humanTurns: 1 } });
    const text = await run(['scan', p]);
    expect(text.out[0]).toContain('codex transcript, detected: pre-envelope Codex session header; choose with --dialect claude|codex');
    expect(detectDialect(user('hi')).dialect.name).toBe('codex');
    expect(detectDialect(line.human('hi')).dialect.name).toBe('claude');
    const forced = await run(['scan', p, '--dialect', 'claude']);
    expect(forced.out[0]).toContain('claude transcript, chosen with --dialect');
  });

  it('U10 paginated Codex prompts are human turns; a sub-agent thread shows its parent-written prompt as machine and says it is not linked', async () => {
    const paged = await run(['scan', join(fixtures, 'codex-paginated.jsonl'), '--json', '--own', 'continue']);
    expect(JSON.parse(paged.out.at(-1)!)).toMatchObject({ summary: { dialect: 'codex', humanTurns: 2, ownEchoes: 1 } });
    const sub = await run(['scan', join(fixtures, 'codex-subagent.jsonl'), '--json']);
    const rows = sub.out.map((l) => JSON.parse(l) as Record<string, any>);
    expect(rows.at(-1)!['summary']).toMatchObject({ humanTurns: 0, machineDriven: 'sub-agent thread (session_meta.source.subagent: thread_spawn)' });
    expect(rows.filter((r) => r['reason'] === 'machine-thread')).toHaveLength(1);
    const text = await run(['scan', join(fixtures, 'codex-subagent.jsonl')]);
    expect(text.out.at(-1)).toContain('machine-driven thread: sub-agent thread');
  });

  it('usage errors exit 2, a missing file exits 4', async () => {
    expect((await run(['scan'])).code).toBe(2);
    expect((await run(['nope'])).code).toBe(2);
    expect((await run(['scan', join(dir, 'x.jsonl'), '--dialect', 'gemini'])).code).toBe(2);
    expect((await run(['scan', join(dir, 'missing.jsonl')])).code).toBe(4);
  });
});

describe('session-state-kit upstream scan as a real process (the built CLI)', () => {
  const cli = useBuiltCli();
  it('U10 the bundled command classifies the Claude Code 2.x fixture and lists itself in --help', async () => {
    const help = await runCli(cli.path(), ['--help']);
    expect(help.stdout).toContain('upstream scan');
    const r = await runCli(cli.path(), ['upstream', 'scan', join(fixtures, 'claude-code-2x.jsonl'), '--own', '/review 12', '--own', 'please continue', '--own', '', '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { summary: Record<string, number> };
    expect(summary.summary).toMatchObject({ lines: 28, humanTurns: 5, ownEchoes: 3, waiting: 0 });
    expect((await runCli(cli.path(), ['upstream', '--help'])).stdout).toContain('own echo');
  });

  it('U6 a FIFO is not a transcript: "not a regular file", exit 4, without waiting for a writer', async () => {
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading blocks until a writer comes; runCli kills a hung child after 30 s.
    const r = await runCli(cli.path(), ['upstream', 'scan', fifo]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('is not a regular file');
  });

  it('U6 --json output reaches a slow reader whole: the CLI flushes stdout before it exits', async () => {
    const p = join(dir, 'many.jsonl');
    const n = 12_000;
    writeFileSync(p, Array.from({ length: n }, (_, i) => `${line.human(`turn number ${i} ${'x'.repeat(40)}`)}\n`).join(''));
    const child = spawn(process.execPath, [cli.path(), 'upstream', 'scan', p, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader takes nothing until the child has exited (or 3 s passed): everything the child
    // wrote beyond the pipe's buffer is still queued in it, and must not be dropped by its exit.
    child.stdout.pause();
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    const closed = new Promise((res) => child.stdout.on('close', res));
    await Promise.race([exited, new Promise((res) => setTimeout(res, 3_000))]);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stdout.resume();
    const code = await exited;
    await closed;
    expect(code).toBe(0);
    const rows = out.trim().split('\n');
    expect(rows).toHaveLength(n + 1);
    expect(JSON.parse(rows.at(-1)!)).toMatchObject({ summary: { lines: n, humanTurns: n } });
  });
});
