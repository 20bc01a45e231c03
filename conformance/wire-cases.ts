import { spawn, type ChildProcess } from 'node:child_process';
import type { WireCapability } from '../spec/index.js';
import { T0 } from './script.js';
import { readLines } from './lines.js';

/**
 * Driver cases: what the wire protocol itself says (W1, W3, W4) about lines no property sends,
 * checked byte for byte against an implementation's process. Properties drive the contract through
 * well-formed requests; these send what a careless driver or a bad line would (a blank line, a raw
 * CR between tokens, an id that is not an integer, a create the schema refuses) and read exactly
 * the answers the spec names. No timing is involved: an answer that should not come is detected by
 * the id of the next one, since answers come in request order (W1).
 */

interface Answer {
  id?: unknown;
  ok?: unknown;
  result?: unknown;
  error?: { name?: unknown; field?: unknown };
}

/** One implementation process, written to as raw bytes and read as lines. */
class RawWire {
  private readonly child: ChildProcess;
  private readonly answers: Answer[] = [];
  private readonly waiting: ((a: Answer) => void)[] = [];
  private exited: Error | undefined;
  private stderr = '';

  constructor(command: string) {
    this.child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => void (this.stderr = (this.stderr + d.toString('utf8')).slice(-2000)));
    readLines(this.child.stdout!, (line) => {
      let a: Answer;
      try {
        a = JSON.parse(line) as Answer;
      } catch {
        a = { id: Symbol.for('not JSON'), result: line };
      }
      const w = this.waiting.shift();
      if (w) w(a);
      else this.answers.push(a);
    });
    this.child.on('exit', (code) => {
      this.exited = new Error(`the implementation exited (code ${String(code)})${this.stderr ? `: ${this.stderr.trim().split('\n').pop()}` : ''}`);
      for (const w of this.waiting.splice(0)) w({ id: this.exited });
    });
  }

  send(raw: string): void {
    this.child.stdin!.write(raw);
  }

  request(id: number, op: string, args: unknown[]): void {
    this.send(`${JSON.stringify({ id, op, args, now: T0 })}\n`);
  }

  /** The next answer, in order; fails after `timeoutMs` (a hung implementation, W1's per-request timeout). */
  next(timeoutMs: number): Promise<Answer> {
    const a = this.answers.shift();
    if (a) return Promise.resolve(a);
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push((x) => {
        clearTimeout(timer);
        if (x.id instanceof Error) reject(x.id);
        else resolve(x);
      });
    });
  }

  private closing: Promise<void> | undefined;

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    try {
      this.request(999_999, 'shutdown', []);
      this.child.stdin!.end();
    } catch {
      // already gone
    }
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.exited) return resolve();
      const t = setTimeout(() => (this.child.kill('SIGKILL'), resolve()), 5000);
      this.child.on('exit', () => (clearTimeout(t), resolve()));
    });
  }
}

class CaseFailure extends Error {}

// W8: a backing is the implementation's own name (often a fresh temporary path); a failure names
// that there was one, so two runs of one implementation fail with the same words.
const show = (a: Answer) => JSON.stringify(a, (k, v: unknown) => (typeof v === 'symbol' ? String(v) : k === 'backing' && typeof v === 'string' ? '<backing>' : v));

/** One driver case. `run` throws a CaseFailure naming what differed; `needsHandles` cases need W8. */
export interface WireCase {
  name: string;
  rules: string[];
  title: string;
  needsHandles?: boolean;
  /** W4: what it cannot be run without (an implementation's hello may say it lacks it). */
  needs?: readonly WireCapability[];
  run(open: () => RawWire, timeoutMs: number, lacks: readonly WireCapability[]): Promise<void>;
}

function expectAnswer(a: Answer, want: { id: number; ok: boolean; error?: string; field?: string }, what: string): void {
  const okName = want.ok ? a.ok === true : a.ok === false && a.error?.name === want.error && (want.field === undefined || a.error?.field === want.field);
  if (a.id !== want.id || !okName) {
    throw new CaseFailure(`${what}: expected ${JSON.stringify({ id: want.id, ok: want.ok, ...(want.error ? { error: { name: want.error, ...(want.field ? { field: want.field } : {}) } } : {}) })}, got ${show(a)}`);
  }
}

/** A valid record of one human turn. */
const HUMAN = { sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' };

export const WIRE_CASES: readonly WireCase[] = [
  {
    name: 'W1-blank-lines',
    rules: ['W1'],
    title: 'an empty line, and one of spaces, tabs and CRs, is no request: nothing answers it',
    async run(open, t) {
      const w = open();
      try {
        w.send('\n \t\r\n');
        w.request(7, 'hello', []);
        expectAnswer(await w.next(t), { id: 7, ok: true }, 'after two blank lines the first answer must be the hello\'s (a blank line gets none)');
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W1-raw-cr',
    rules: ['W1'],
    title: 'a raw CR between JSON tokens is whitespace inside one line, not a line end',
    async run(open, t) {
      const w = open();
      try {
        w.send(`{"id":8,\r"op":"hello",\r"args":[],"now":${T0}}\r\n`);
        expectAnswer(await w.next(t), { id: 8, ok: true }, 'a request with raw CRs between its tokens (and before its LF)');
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W3-id-zero',
    rules: ['W3'],
    title: 'the answer to a line that is not JSON, or whose id is missing or not an integer, is a ProtocolError with id 0',
    async run(open, t) {
      const w = open();
      try {
        w.send('not json\n');
        w.send(`{"op":"hello","args":[],"now":${T0}}\n`);
        w.send(`{"id":"9","op":"hello","args":[],"now":${T0}}\n`);
        w.send(`{"id":1.5,"op":"hello","args":[],"now":${T0}}\n`);
        for (const what of ['a line that is not JSON', 'a request without an id', 'an id that is a string', 'an id that is not an integer']) {
          expectAnswer(await w.next(t), { id: 0, ok: false, error: 'ProtocolError' }, what);
        }
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W4-bad-create-keeps-the-store',
    rules: ['W4'],
    title: 'a create the schema refuses (maxRows: 0) is a ProtocolError that reaches no store: the open one stays open',
    async run(open, t) {
      const w = open();
      try {
        w.request(1, 'create', [{}]);
        expectAnswer(await w.next(t), { id: 1, ok: true }, 'create {}');
        w.request(2, 'record', [HUMAN]);
        const recorded = await w.next(t);
        expectAnswer(recorded, { id: 2, ok: true }, 'a valid record');
        w.request(3, 'create', [{ maxRows: 0 }]);
        expectAnswer(await w.next(t), { id: 3, ok: false, error: 'ProtocolError' }, 'create {maxRows: 0}');
        w.request(4, 'stateVersion', [HUMAN.sessionKey, 'main']);
        const head = await w.next(t);
        expectAnswer(head, { id: 4, ok: true }, 'stateVersion after the refused create');
        if (head.result !== (recorded.result as { sequence?: unknown } | null)?.sequence) throw new CaseFailure(`the store open before the refused create must still hold its event: stateVersion ${show(head)}, recorded ${show(recorded)}`);
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W4-template-errors',
    rules: ['W4', 'R23b'],
    needs: ['noticeLink'],
    title: 'a noticeLink that breaks WireCreateOptions is a ProtocolError (the store kept); a string R23b refuses is a ValidationError on noticeLink',
    async run(open, t) {
      const w = open();
      try {
        w.request(1, 'create', [{}]);
        expectAnswer(await w.next(t), { id: 1, ok: true }, 'create {}');
        w.request(2, 'create', [{ noticeLink: 5 }]);
        expectAnswer(await w.next(t), { id: 2, ok: false, error: 'ProtocolError' }, 'create {noticeLink: 5} (not a string)');
        w.request(3, 'create', [{ noticeLink: '' }]);
        expectAnswer(await w.next(t), { id: 3, ok: false, error: 'ProtocolError' }, 'create {noticeLink: ""} (empty)');
        w.request(4, 'stateVersion', [HUMAN.sessionKey, 'main']);
        expectAnswer(await w.next(t), { id: 4, ok: true }, 'stateVersion after creates the schema refused');
        w.request(5, 'create', [{ noticeLink: 'ftp://example.com/{sessionKey}' }]);
        expectAnswer(await w.next(t), { id: 5, ok: false, error: 'ValidationError', field: 'noticeLink' }, 'create {noticeLink: "ftp://..."} (R23b refuses the scheme)');
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W4-no-store-after-refusal',
    rules: ['W4', 'W5'],
    title: 'after a create the store refuses, every op but hello, create, openHandle and shutdown is a ProtocolError until the next create',
    async run(open, t, lacks) {
      const w = open();
      try {
        w.request(1, 'create', [{}]);
        expectAnswer(await w.next(t), { id: 1, ok: true }, 'create {}');
        // A refusal by the store itself: R23b's template where the implementation has one, else R6's clock.
        if (lacks.includes('noticeLink')) {
          w.send(`${JSON.stringify({ id: 2, op: 'create', args: [{}], now: -1 })}\n`);
          expectAnswer(await w.next(t), { id: 2, ok: false, error: 'ClockError' }, 'create at now -1 (R6 refuses a negative clock)');
        } else {
          w.request(2, 'create', [{ noticeLink: 'http://' }]);
          expectAnswer(await w.next(t), { id: 2, ok: false, error: 'ValidationError', field: 'noticeLink' }, 'create {noticeLink: "http://"} (nothing after //, R23b)');
        }
        w.request(3, 'stateVersion', [HUMAN.sessionKey, 'main']);
        expectAnswer(await w.next(t), { id: 3, ok: false, error: 'ProtocolError' }, 'stateVersion with no store open');
        w.request(4, 'record', [HUMAN]);
        expectAnswer(await w.next(t), { id: 4, ok: false, error: 'ProtocolError' }, 'record with no store open');
        w.request(5, 'hello', []);
        expectAnswer(await w.next(t), { id: 5, ok: true }, 'hello with no store open');
        w.request(6, 'create', [{}]);
        expectAnswer(await w.next(t), { id: 6, ok: true }, 'create {} again');
        w.request(7, 'stateVersion', [HUMAN.sessionKey, 'main']);
        const head = await w.next(t);
        expectAnswer(head, { id: 7, ok: true }, 'stateVersion in the new store');
        if (head.result !== 0) throw new CaseFailure(`a fresh store has head 0, got ${show(head)}`);
      } finally {
        await w.close();
      }
    },
  },
  {
    name: 'W4-open-handle-defaults',
    rules: ['W4', 'W8', 'R23b'],
    title: 'a handle opened without the creator\'s options takes the defaults: its notices carry no link',
    needsHandles: true,
    needs: ['noticeLink'],
    async run(open, t) {
      const a = open();
      const b = open();
      try {
        a.request(1, 'create', [{ noticeLink: 'https://example.com/{sessionKey}' }]);
        const created = await a.next(t);
        expectAnswer(created, { id: 1, ok: true }, 'create with a noticeLink');
        const backing = (created.result as { backing?: unknown } | null)?.backing;
        if (typeof backing !== 'string') throw new CaseFailure('create answered no backing (W8): this case needs handles');
        a.request(2, 'watch', [{ watcherSessionKey: 'agent:main:coordinator', targetSessionKey: HUMAN.sessionKey, agentId: 'main' }]);
        expectAnswer(await a.next(t), { id: 2, ok: true }, 'watch');
        a.request(3, 'record', [HUMAN]);
        expectAnswer(await a.next(t), { id: 3, ok: true }, 'record');
        b.request(1, 'openHandle', [{ backing }]);
        expectAnswer(await b.next(t), { id: 1, ok: true }, 'openHandle without the creator\'s options');
        b.request(2, 'pendingNotices', ['agent:main:coordinator']);
        const pending = await b.next(t);
        expectAnswer(pending, { id: 2, ok: true }, 'pendingNotices through the second handle');
        const texts = Array.isArray(pending.result) ? pending.result.map((n) => (n as { text?: unknown }).text) : [];
        if (texts.length !== 1 || typeof texts[0] !== 'string' || texts[0].includes('Open: [session]')) {
          throw new CaseFailure(`the handle was opened without noticeLink, so its one notice must have the plain R23 text, got ${show(pending)}`);
        }
        b.request(3, 'close', []);
        await b.next(t);
      } finally {
        await b.close();
        await a.close();
      }
    },
  },
];

/** One wire case's outcome (W1, W3, W4): passed, failed with a message, or not run and why. */
export interface WireCaseResult {
  name: string;
  rules: string[];
  title: string;
  passed: boolean;
  /** Why it failed, or why it did not run. */
  message?: string;
  notRun?: boolean;
}

/** Runs the driver cases against processes of `command` (each case starts its own). */
export async function runWireCases(command: string, options: { handles: boolean; timeoutMs?: number; only?: readonly string[]; lacks?: readonly WireCapability[] } = { handles: true }): Promise<WireCaseResult[]> {
  const out: WireCaseResult[] = [];
  const lacks = options.lacks ?? [];
  for (const c of WIRE_CASES) {
    if (options.only && !options.only.includes(c.name)) continue;
    const missing = (c.needs ?? []).filter((n) => lacks.includes(n));
    if (missing.length > 0) {
      out.push({ name: c.name, rules: c.rules, title: c.title, passed: false, notRun: true, message: `the implementation lacks ${missing.join(' and ')} (W4)` });
      continue;
    }
    if (c.needsHandles && !options.handles) {
      out.push({ name: c.name, rules: c.rules, title: c.title, passed: false, notRun: true, message: 'the implementation opens no handles in other processes (W8)' });
      continue;
    }
    const opened: RawWire[] = [];
    try {
      await c.run(() => {
        const w = new RawWire(command);
        opened.push(w);
        return w;
      }, options.timeoutMs ?? 30_000, lacks);
      out.push({ name: c.name, rules: c.rules, title: c.title, passed: true });
    } catch (error) {
      out.push({ name: c.name, rules: c.rules, title: c.title, passed: false, message: error instanceof Error ? error.message : String(error) });
    } finally {
      await Promise.all(opened.map((w) => w.close()));
    }
  }
  return out;
}
