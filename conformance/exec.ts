/**
 * The driver side of the conformance wire protocol (spec/schemas/wire.ts, PROTOCOL.md "Conformance wire protocol"):
 * a contract StoreFactory whose stores live in a child process, spoken to in JSON lines. The
 * driver's clock travels with every request as `now`, since the other side cannot share it.
 * One store is open at a time per process: `create` replaces the previous one.
 *
 * Multi-handle mode (`handles: true`, W8): each extra handle is another process of the same
 * command, which opens the first process's store again by the name (`backing`) its `create`
 * returned: separate OS processes on one backing store, as real deployments run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Compile } from 'typebox/compile';
import {
  STORE_OPS,
  WIRE_PROTOCOL_VERSION,
  WireHello,
  WireResponse,
  WireCreated,
  type CreateOptions,
  type SessionStateStore,
  type StoreFactory,
  type WireCreateOptions,
  type WireOp,
} from '../spec/index.js';
import type { OpenHandle } from './handles.js';
import { readLines } from './lines.js';

const responseCheck = Compile(WireResponse);
const helloCheck = Compile(WireHello);
const createdCheck = Compile(WireCreated);

/**
 * W1-W8: options of execFactory: the child's working directory and environment, the request timeout, stderr and multi-handle mode.
 */
export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string | undefined>; // process.env fits; structural so the types need no @types/node
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Receives the child's stderr (default: dropped). */
  onStderr?: (text: string) => void;
  /**
   * Multi-handle mode (W8): offer openHandle, each extra handle being another process of the same
   * command. The implementation's `create` must then answer `{backing}`.
   */
  handles?: boolean;
}

/**
 * W1-W8: a StoreFactory whose stores live in a child process spoken to over the conformance wire protocol; dispose it when done.
 */
export interface ExecFactory extends StoreFactory {
  /** Starts the child if needed and returns its hello. */
  hello(): Promise<WireHello>;
  /** Asks the children to shut down, then kills any that linger. */
  dispose(): Promise<void>;
  /** With `handles: true`: another handle on `first`'s backing store, in another process. */
  openHandle?: OpenHandle;
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

/** One child process speaking the wire protocol, holding one store at a time. */
interface Connection {
  request(op: WireOp, args: unknown[], now: number): Promise<unknown>;
  hello(): Promise<WireHello>;
  /** Bumped by every create/openHandle: a store from an older one is stale. */
  generation: number;
  dispose(): Promise<void>;
}

function connect(command: string, options: ExecOptions): Connection {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let child: ChildProcess | undefined;
  let dead: Error | undefined;
  let nextId = 1;
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
    // W1: responses are framed on LF bytes only (conformance/lines.ts).
    readLines(c.stdout!, (line) => {
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

  const conn: Connection = {
    request,
    generation: 0,
    hello: () => {
      hello ??= request('hello', [], Date.now()).then((h) => {
        if (!helloCheck.Check(h)) throw new Error(`protocol error: hello must answer {protocol: "${WIRE_PROTOCOL_VERSION}"}, got ${JSON.stringify(h)}`);
        return h;
      });
      return hello;
    },
    dispose: async () => {
      const c = child;
      if (!c || dead) return;
      try {
        await Promise.race([request('shutdown', [], Date.now()), new Promise((r) => setTimeout(r, 2000))]);
      } catch {
        // already gone
      }
      if (c.exitCode === null && c.signalCode === null) c.kill();
      failAll(new Error('disposed'));
    },
  };
  return conn;
}

/** The contract methods over one connection, valid until that connection opens another store. */
function remoteStore(conn: Connection, options: CreateOptions): SessionStateStore {
  const mine = conn.generation;
  let closed = false;
  const call = (op: WireOp) => (...args: unknown[]) => {
    if (closed) return Promise.reject(new Error('store is closed'));
    if (mine !== conn.generation) return Promise.reject(new Error('this store was replaced by a newer create (the wire protocol keeps one store at a time per process)'));
    const p = conn.request(op, args, options.now());
    if (op === 'record') return p.then((r) => (r === null ? undefined : r));
    if (op === 'recordMany') return p.then((rs) => (Array.isArray(rs) ? rs.map((r: unknown) => (r === null ? undefined : r)) : rs));
    return p;
  };
  const store: Record<string, unknown> = {};
  for (const op of STORE_OPS) store[op] = call(op);
  store['close'] = async () => {
    if (closed || mine !== conn.generation) return;
    closed = true;
    await conn.request('close', [], options.now());
  };
  return store as unknown as SessionStateStore;
}

function limitsOf(createOptions: CreateOptions): WireCreateOptions {
  const o: WireCreateOptions = {};
  if (createOptions.retentionMs !== undefined) o.retentionMs = createOptions.retentionMs;
  if (createOptions.maxRows !== undefined) o.maxRows = createOptions.maxRows;
  if (createOptions.noticeLink !== undefined) o.noticeLink = createOptions.noticeLink;
  return o;
}

/**
 * W1-W8: runs `command` as a child process speaking the conformance wire protocol and returns a StoreFactory over it (the driver side of the wire).
 */
export function execFactory(command: string, options: ExecOptions = {}): ExecFactory {
  const main = connect(command, options);
  /** Extra processes for multi-handle mode, started on first use and kept for the next stores. */
  const extras: Connection[] = [];
  /** Per first handle: its backing name and how many extra handles it has. */
  const firsts = new WeakMap<SessionStateStore, { backing: string | undefined; opened: number }>();

  const factory = (async (createOptions: CreateOptions): Promise<SessionStateStore> => {
    await main.hello();
    main.generation++;
    const created = await main.request('create', [limitsOf(createOptions)], createOptions.now());
    if (created !== null && !createdCheck.Check(created)) throw new Error(`protocol error: create must answer null or {backing: string}, got ${JSON.stringify(created)}`);
    const store = remoteStore(main, createOptions);
    firsts.set(store, { backing: created === null ? undefined : created.backing, opened: 0 });
    return store;
  }) as ExecFactory;

  factory.hello = () => main.hello();
  factory.dispose = async () => {
    await Promise.all([main, ...extras].map((c) => c.dispose()));
  };
  if (options.handles) {
    factory.openHandle = async (first, createOptions) => {
      const info = firsts.get(first);
      if (!info) throw new Error('openHandle: the first handle was not made by this factory');
      if (info.backing === undefined) throw new Error('openHandle: the implementation\'s create answered null, so no other process can open its store (W8: answer {backing})');
      const conn = (extras[info.opened] ??= connect(command, options));
      info.opened++;
      await conn.hello();
      conn.generation++;
      await conn.request('openHandle', [{ backing: info.backing, ...limitsOf(createOptions) }], createOptions.now());
      return remoteStore(conn, createOptions);
    };
  }
  return factory;
}
