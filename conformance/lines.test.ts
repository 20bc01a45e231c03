/**
 * W1 framing: LF bytes end a line, nothing else does. Node's readline also ends one at CR (every
 * version) and at U+2028/U+2029 (Node 24): JSON allows a raw CR between tokens and raw U+2028 inside
 * a string, so either would cut a request in two. The Node 24 run of the hostile-key vector over
 * the wire is in test/runtimes/node24-wire.test.ts.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readLines } from './lines.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('W1: lines end at LF bytes only', () => {
  it('keeps CR, U+2028 and U+2029 inside a line and joins a character split across chunks', async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    let ended = false;
    const done = new Promise<void>((resolve) =>
      readLines(
        input,
        (l) => lines.push(l),
        () => {
          ended = true;
          resolve();
        },
      ),
    );
    const bytes = Buffer.from('{"a":\r"x\u2028y\u2029z"}\n\n{"b":"\u{1F600}"}\nlast', 'utf8');
    const emoji = bytes.indexOf(0xf0);
    // Chunk boundaries inside a line and twice inside the 4-byte emoji.
    let at = 0;
    for (const cut of [3, emoji + 1, emoji + 3, bytes.length]) {
      input.write(bytes.subarray(at, cut));
      at = cut;
    }
    input.end();
    await done;
    expect(ended).toBe(true);
    expect(lines).toEqual(['{"a":\r"x\u2028y\u2029z"}', '', '{"b":"\u{1F600}"}', 'last']);
  });

  it('the stdio server answers a request holding a raw CR and U+2028 once, as one request', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/stdio-server.ts', '--store', 'memory'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    const out: string[] = [];
    const closed = new Promise<void>((resolve) => readLines(child.stdout, (l) => out.push(l), resolve));
    const now = 1767225600000;
    child.stdin.write(`{"id":1,"op":"create","args":[{}],"now":${now}}\n`);
    // A CR between tokens, and a key holding U+2028 (R1 refuses it: a ValidationError, not a broken frame).
    child.stdin.write(`{"id":2,\r"op":"stateVersion","args":["agent:main:a\u2028b","main"],"now":${now}}\n`);
    child.stdin.write(`{"id":3,"op":"shutdown","args":[],"now":${now}}\n`);
    await closed;
    const answers = out.filter((l) => l !== '').map((l) => JSON.parse(l) as { id: number; ok: boolean; error?: { name: string; field?: string } });
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[1]).toMatchObject({ ok: false, error: { name: 'ValidationError', field: 'sessionKey' } });
  }, 30_000);
});

describe('W4: requests that reach no store', () => {
  it('a request without now and options outside WireCreateOptions are ProtocolErrors; a refused create leaves no store open', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/stdio-server.ts', '--store', 'memory'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    const out: string[] = [];
    const closed = new Promise<void>((resolve) => readLines(child.stdout, (l) => out.push(l), resolve));
    const now = 1767225600000;
    const send = (r: object) => child.stdin.write(`${JSON.stringify(r)}\n`);
    send({ id: 1, op: 'create', args: [{}] });
    send({ id: 2, op: 'create', args: [{ maxRows: 0 }], now });
    send({ id: 3, op: 'create', args: [{}], now });
    send({ id: 4, op: 'stateVersion', args: ['agent:main:a', 'main'], now });
    send({ id: 5, op: 'create', args: [{ noticeLink: 'ftp://example.com/{sessionKey}' }], now });
    send({ id: 6, op: 'stateVersion', args: ['agent:main:a', 'main'], now });
    send({ id: 7, op: 'shutdown', args: [], now });
    await closed;
    const answers = out.filter((l) => l !== '').map((l) => JSON.parse(l) as { id: number; ok: boolean; result?: unknown; error?: { name: string; field?: string } });
    expect(answers.map((a) => [a.id, a.ok ? 'ok' : a.error!.name])).toEqual([
      [1, 'ProtocolError'],
      [2, 'ProtocolError'],
      [3, 'ok'],
      [4, 'ok'],
      [5, 'ValidationError'],
      [6, 'ProtocolError'],
      [7, 'ok'],
    ]);
    expect(answers[4]!.error!.field).toBe('noticeLink');
  }, 30_000);
});
