/**
 * The driver side of the conformance wire protocol (spec/schemas/wire.ts, PROTOCOL.md "Conformance wire protocol"):
 * a contract StoreFactory whose stores live in a child process, spoken to in JSON lines. The
 * driver's clock travels with every request as `now`, since the other side cannot share it.
 * One store is open at a time: `create` replaces the previous one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Compile } from 'typebox/compile';
import {
  STORE_OPS,
  WIRE_PROTOCOL_VERSION,
  WireHello,
  WireResponse,
  type CreateOptions,
  type SessionStateStore,
  type StoreFactory,
  type WireCreateOptions,
  type WireOp,
} from '../spec/index.js';

const responseCheck = Compile(WireResponse);
const helloCheck = Compile(WireHello);

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string | undefined>; // process.env fits; structural so the types need no @types/node
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Receives the child's stderr (default: dropped). */
  onStderr?: (text: string) => void;
}

export interface ExecFactory extends StoreFactory {
  /** Starts the child if needed and returns its hello. */
  hello(): Promise<WireHello>;
  /** Asks the child to shut down, then kills it if it lingers. */
  dispose(): Promise<void>;
}

/** An error thrown by the other side, rebuilt with its name and field (R9). */
export class RemoteError extends Error {
  field?: string;
  constructor(name: string, message: string, field?: string) {
    super(message);
    this.name = name;
    if (field !== undefined) this.field = field;
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  op: string;
}

export function execFactory(command: string, options: ExecOptions = {}): ExecFactory {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let child: ChildProcess | undefined;
  let dead: Error | undefined;
  let nextId = 1;
  let generation = 0;
  let hello: Promise<WireHello> | undefined;
  const pending = new Map<number, Pending>();

  const failAll = (error: Error) => {
    dead ??= error;
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(error);
      pending.delete(id);
    }
  };

  const start = (): ChildProcess => {
    if (child) return child;
    const c = spawn(command, { shell: true, cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    child = c;
    c.stderr!.setEncoding('utf8');
    c.stderr!.on('data', (text: string) => options.onStderr?.(text));
    c.stdin!.on('error', (error) => failAll(new Error(`cannot write to the implementation: ${error.message}`)));
    c.on('error', (error) => failAll(new Error(`cannot start ${JSON.stringify(command)}: ${error.message}`)));
    c.on('exit', (code, signal) => failAll(new Error(`the implementation exited (${signal ?? `code ${code}`})`)));
    createInterface({ input: c.stdout! }).on('line', (line) => {
      if (line.trim() === '') return;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        failAll(new Error(`protocol error: the implementation wrote a line that is not JSON: ${line.slice(0, 200)}`));
        c.kill();
        return;
      }
      if (!responseCheck.Check(msg)) {
        failAll(new Error(`protocol error: not a WireResponse: ${line.slice(0, 200)}`));
        c.kill();
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new RemoteError(msg.error.name, msg.error.message, msg.error.field));
    });
    return c;
  };

  const request = (op: WireOp, args: unknown[], now: number): Promise<unknown> => {
    if (dead) return Promise.reject(dead);
    const c = start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`timeout: no answer to ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer, op });
      c.stdin!.write(`${JSON.stringify({ id, op, args, now })}\n`);
    });
  };

  const ensureHello = (): Promise<WireHello> => {
    hello ??= request('hello', [], Date.now()).then((h) => {
      if (!helloCheck.Check(h)) throw new Error(`protocol error: hello must answer {protocol: "${WIRE_PROTOCOL_VERSION}"}, got ${JSON.stringify(h)}`);
      return h;
    });
    return hello;
  };

  const factory = (async (createOptions: CreateOptions): Promise<SessionStateStore> => {
    await ensureHello();
    const wireOptions: WireCreateOptions = {};
    if (createOptions.retentionMs !== undefined) wireOptions.retentionMs = createOptions.retentionMs;
    if (createOptions.maxRows !== undefined) wireOptions.maxRows = createOptions.maxRows;
    if (createOptions.noticeLink !== undefined) wireOptions.noticeLink = createOptions.noticeLink;
    const mine = ++generation;
    await request('create', [wireOptions], createOptions.now());
    let closed = false;
    const call = (op: WireOp) => (...args: unknown[]) => {
      if (closed) return Promise.reject(new Error('store is closed'));
      if (mine !== generation) return Promise.reject(new Error('this store was replaced by a newer create (the wire protocol keeps one store at a time)'));
      const p = request(op, args, createOptions.now());
      return op === 'record' ? p.then((r) => (r === null ? undefined : r)) : p;
    };
    const store: Record<string, unknown> = {};
    for (const op of STORE_OPS) store[op] = call(op);
    store['close'] = async () => {
      if (closed || mine !== generation) return;
      closed = true;
      await request('close', [], createOptions.now());
    };
    return store as unknown as SessionStateStore;
  }) as ExecFactory;

  factory.hello = ensureHello;
  factory.dispose = async () => {
    const c = child;
    if (!c || dead) return;
    try {
      await Promise.race([request('shutdown', [], Date.now()), new Promise((r) => setTimeout(r, 2000))]);
    } catch {
      // already gone
    }
    if (c.exitCode === null && c.signalCode === null) c.kill();
    failAll(new Error('disposed'));
  };
  return factory;
}
