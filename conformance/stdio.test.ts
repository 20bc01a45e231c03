/**
 * The wire protocol end to end: the suite drives a store in a child process over JSON lines
 * (conformance/stdio-server.ts), exactly as it would drive an implementation in another language.
 */
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { WIRE_PROTOCOL_VERSION, WireResponse } from '../spec/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { execFactory, type ExecFactory } from './exec.js';
import { PROPERTIES, formatReport, runConformance } from './index.js';
import { serveWire } from './wire-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = (flags: string) => `"${process.execPath}" --import tsx conformance/stdio-server.ts ${flags}`;
const started: ExecFactory[] = [];
function spawnServer(flags: string, handles = false): ExecFactory {
  const f = execFactory(server(flags), { cwd: root, timeoutMs: 20_000, handles });
  started.push(f);
  return f;
}
afterAll(async () => {
  for (const f of started) await f.dispose();
});

describe('conformance over the wire protocol (child process)', () => {
  it('W4/W6: the memory store served over stdio passes the suite', async () => {
    const f = spawnServer('--store memory');
    expect(await f.hello()).toEqual({ protocol: WIRE_PROTOCOL_VERSION, implementation: 'session-state-kit memory' });
    // Fewer cases than in-process (every call is a round trip); the 50,000-row property is left to the CLI.
    const properties = PROPERTIES.filter((p) => !p.multiHandle).map((p) => p.name).filter((n) => n !== 'R42-real-limits');
    const r = await runConformance(f, { seed: 777, runs: 12, properties });
    if (!r.passed) console.error(formatReport(r));
    expect(r.passed).toBe(true);
    expect(r.properties.length).toBe(properties.length);
  }, 120_000);

  it('a broken store served over stdio is caught, with its ValidationErrors and clock intact', async () => {
    const f = spawnServer('--broken no-follow-up');
    const r = await runConformance(f, { seed: 5, runs: 40, properties: ['R27-R28-ack-on-drain', 'R9-validation', 'R33-history-gap', 'R6-clock'], shrink: false });
    expect(r.properties.map((p) => [p.name, p.passed])).toEqual([
      ['R27-R28-ack-on-drain', false],
      ['R33-history-gap', true], // the clock crosses the wire: pruning by age works remotely
      ['R6-clock', true], // fractional and negative clocks cross the wire; ClockError comes back by name
      ['R9-validation', true], // errors cross the wire with name and field
    ]);
  }, 60_000);

  it('W8: in multi-handle mode each handle is its own OS process on one SQLite file, and the suite passes', async () => {
    const f = spawnServer('--store sqlite-file', true);
    const properties = ['model', 'R20-R27-handles-agree'];
    const r = await runConformance(f, { seed: 808, runs: 6, properties, handles: 3 });
    if (!r.passed) console.error(formatReport(r));
    expect(r.handles).toBe(3);
    expect(r.properties.map((p) => [p.name, p.passed])).toEqual(properties.map((n) => [n, true]));
  }, 180_000);

  it('W4/W8: an extra handle takes the first handle\'s noticeLink, and its notices carry the link (R23b)', async () => {
    const f = spawnServer('--store sqlite-file', true);
    let t = 1767225600000;
    const options = { now: () => t, noticeLink: 'https://ui.example/{agentId}/{sessionKey}' };
    const first = await f(options);
    const other = await f.openHandle!(first, options);
    await other.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:peer', agentId: 'main' });
    t += 1000;
    await first.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    const [notice] = await other.pendingNotices('agent:main:main');
    expect(notice!.text).toContain('Open: [session](<https://ui.example/main/agent%3Amain%3Apeer>) ');
    await other.close();
    await first.close();
  }, 60_000);

  it('W8: a server that cannot share its store says so instead of pretending', async () => {
    const f = spawnServer('--store memory', true);
    const r = await runConformance(f, { seed: 1, runs: 1, properties: ['R20-R27-handles-agree'], handles: 2 });
    expect(r.passed).toBe(false);
    expect(r.properties[0]!.failure!.message).toMatch(/create answered null/);
  }, 60_000);

  it('reports a dead or silent implementation instead of hanging', async () => {
    const f = execFactory(`"${process.execPath}" -e "process.stdin.resume(); setTimeout(() => process.exit(3), 50)"`, { timeoutMs: 5_000 });
    await expect(f.hello()).rejects.toThrow(/exited \(code 3\)/);
    const g = execFactory(`"${process.execPath}" -e "console.log('not json')"`, { timeoutMs: 5_000 });
    await expect(g.hello()).rejects.toThrow(/not JSON|exited/);
  });
});

describe('serveWire (the implementation side)', () => {
  const check = Compile(WireResponse);
  async function converse(lines: unknown[]): Promise<unknown[]> {
    const input = new PassThrough();
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    const done = serveWire(createMemoryStore, { input, output }, 'test');
    for (const l of lines) input.write(`${typeof l === 'string' ? l : JSON.stringify(l)}\n`);
    input.end();
    await done;
    const out = chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    for (const o of out) expect(check.Check(o), JSON.stringify(o)).toBe(true);
    return out;
  }

  it('W1-W5: answers in order, uses the driver clock, carries ValidationError fields, rejects malformed requests', async () => {
    const T = Date.UTC(2026, 0, 1);
    const input = { sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' };
    const out = await converse([
      { id: 1, op: 'hello', args: [], now: T },
      { id: 2, op: 'stateVersion', args: ['global', 'main'], now: T },
      { id: 3, op: 'create', args: [{ retentionMs: 1000 }], now: T },
      { id: 4, op: 'record', args: [input], now: T + 5 },
      { id: 5, op: 'record', args: [{ ...input, summary: 'two\nlines' }], now: T + 5 },
      { id: 6, op: 'changesSince', args: [{ sessionKey: 'agent:main:peer', agentId: 'main', since: 0 }], now: T + 5000 },
      { id: 7, op: 'prune', args: [], now: T + 5000 },
      { id: 8, op: 'changesSince', args: [{ sessionKey: 'agent:main:peer', agentId: 'main', since: 0 }], now: T + 5000 },
      { id: 9, op: 'record', args: [input, 'extra'], now: T },
      'not json',
      { id: 10, op: 'explode', args: [], now: T },
      { id: 11, op: 'shutdown', args: [], now: T },
      { id: 12, op: 'hello', args: [], now: T },
    ]);
    expect(out.map((o) => (o as { id: number }).id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 10, 11]);
    expect(out[0]).toEqual({ id: 1, ok: true, result: { protocol: WIRE_PROTOCOL_VERSION, implementation: 'test' } });
    expect(out[1]).toMatchObject({ id: 2, ok: false, error: { name: 'ProtocolError' } });
    expect(out[3]).toMatchObject({ id: 4, ok: true, result: { sequence: 1, recordedAt: T + 5, occurredAt: T + 5 } });
    expect(out[4]).toMatchObject({ id: 5, ok: false, error: { name: 'ValidationError', field: 'summary' } });
    expect(out[5]).toMatchObject({ ok: true, result: { stateVersion: 1, stateChanges: { historyGap: false } } });
    expect(out[7]).toMatchObject({ ok: true, result: { stateVersion: 1, stateChanges: { events: [], historyGap: true, earliestAvailableSequence: 2 } } });
    expect(out[8]).toMatchObject({ id: 9, ok: false, error: { name: 'ProtocolError' } });
    expect(out[9]).toMatchObject({ id: 0, ok: false, error: { name: 'ProtocolError' } });
    expect(out[10]).toMatchObject({ id: 10, ok: false, error: { name: 'ProtocolError' } });
    expect(out[11]).toEqual({ id: 11, ok: true, result: null });
  });

  it('W2/W3: a fractional now is floored (R6); a negative now is a ClockError, for create too, and writes nothing', async () => {
    const T = Date.UTC(2026, 0, 1);
    const input = { sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' };
    const out = (await converse([
      { id: 1, op: 'create', args: [{}], now: -5 },
      { id: 2, op: 'create', args: [{}], now: T + 0.5 },
      { id: 3, op: 'record', args: [input], now: T + 1.75 },
      { id: 4, op: 'record', args: [input], now: -1 },
      { id: 5, op: 'restart', args: [], now: -0.5 },
      { id: 6, op: 'stateVersion', args: ['agent:main:peer', 'main'], now: T + 2 },
    ])) as { ok: boolean; result?: unknown; error?: { name: string } }[];
    expect(out[0]).toMatchObject({ ok: false, error: { name: 'ClockError' } });
    expect(out[1]).toEqual({ id: 2, ok: true, result: null });
    expect(out[2]).toMatchObject({ ok: true, result: { sequence: 1, recordedAt: T + 1, occurredAt: T + 1 } });
    expect(out[3]).toMatchObject({ ok: false, error: { name: 'ClockError' } });
    expect(out[4]).toMatchObject({ ok: false, error: { name: 'ClockError' } });
    expect(out[5]).toEqual({ id: 6, ok: true, result: 1 });
  });
});
