/**
 * The implementation side of the conformance wire protocol, for any contract factory. It is what an
 * implementation in another language writes for itself (PROTOCOL.md "Conformance wire protocol"); here it proves the
 * protocol, serving our own stores (conformance/stdio-server.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { Compile } from 'typebox/compile';
import {
  STORE_OPS,
  WIRE_PROTOCOL_VERSION,
  WireRequest,
  type CreateOptions,
  type MaybePromise,
  type SessionStateStore,
  type StoreFactory,
  type StoreOp,
  type WireCreated,
  type WireError,
  type WireCapability,
  type WireResponse,
} from '../spec/index.js';
import { readLines, type LineReader } from './lines.js';

const requestCheck = Compile(WireRequest);

function toWireError(error: unknown): WireError {
  if (error !== null && typeof error === 'object') {
    const e = error as { name?: unknown; message?: unknown; field?: unknown };
    const out: WireError = { name: typeof e.name === 'string' && e.name ? e.name : 'Error', message: typeof e.message === 'string' ? e.message : String(error) };
    if (typeof e.field === 'string') out.field = e.field;
    return out;
  }
  return { name: 'Error', message: String(error) };
}

/**
 * W8, multi-handle mode: how a served store is opened again from another process of the same
 * command. `backingOf` names a store `create` made (a database file path, say); `open` opens
 * another handle on the store so named. Without it, `create` answers null and `openHandle` fails.
 */
export interface WireSharing {
  /** The name of the backing store `store` lives on, or undefined when it cannot be opened again. */
  backingOf(store: SessionStateStore): string | undefined;
  /** Opens another handle on the backing store so named. */
  open(backing: string, options: CreateOptions): MaybePromise<SessionStateStore>;
}

/**
 * The streams serveWire needs, described structurally so the published declarations need no
 * @types/node: `process.stdin` / `process.stdout` or any Node stream fits.
 */
export interface WireStreams {
  input: {
    /** Registers an event listener (Node readline reads the input through it). */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    on(event: string, listener: (...args: any[]) => void): unknown;
  };
  output: {
    /** Writes one response line. */
    write(chunk: string): unknown;
  };
}

/**
 * A deliberately broken wire behaviour, one per driver case (conformance/wire-cases.ts), so the
 * suite's own tests show each case can fail. Never set by a real server.
 */
export type WireQuirk =
  | 'answers-blank-lines'
  | 'splits-at-cr'
  | 'raw-id'
  | 'bad-create-closes-the-store'
  | 'template-schema-is-validation'
  | 'keeps-the-store-after-refusal'
  | 'handle-inherits-options';

/** Options of serveWire: what `hello` says the implementation lacks (W4), and a quirk for the suite's own tests. */
export interface ServeWireOptions {
  lacks?: readonly WireCapability[];
  quirk?: WireQuirk;
}

const BLANK = /^[ \t\r]*$/;

/**
 * W1-W8, the implementation side: serves stores of `factory` over JSON lines on `streams` until the
 * input ends or a `shutdown` request arrives, then closes the open store. `options.lacks` is what
 * `hello` says the implementation does not have (W4).
 */
export function serveWire(factory: StoreFactory, streams: WireStreams, implementation = 'session-state-kit', sharing?: WireSharing, options: ServeWireOptions = {}): Promise<void> {
  const { lacks, quirk } = options;
  const io = streams as { input: Readable; output: Writable };
  let now = 0;
  const clock = () => now;
  let store: SessionStateStore | undefined;
  let chain = Promise.resolve();
  const write = (r: WireResponse) => io.output.write(`${JSON.stringify(r)}\n`);

  return new Promise((resolve) => {
    let lines: LineReader | undefined;
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      lines?.close();
      try {
        await store?.close();
      } catch {
        // shutting down anyway
      }
      resolve();
    };

    const handle = async (line: string): Promise<void> => {
      if (finished) return;
      // W1: a blank line (spaces, tabs, CRs) is no request and gets no answer.
      if (BLANK.test(line)) {
        if (quirk === 'answers-blank-lines') write({ id: 0, ok: false, error: { name: 'ProtocolError', message: 'empty request' } });
        return;
      }
      let req: unknown;
      try {
        req = JSON.parse(line);
      } catch {
        write({ id: 0, ok: false, error: { name: 'ProtocolError', message: 'request is not JSON' } });
        return;
      }
      // W3: an id that is missing or not an integer is answered as 0.
      const rawId = (req as { id?: unknown } | null)?.id;
      const id = quirk === 'raw-id' ? (rawId as number) : Number.isSafeInteger(rawId) ? (rawId as number) : 0;
      if (!requestCheck.Check(req)) {
        const [first] = requestCheck.Errors(req);
        const op = (req as { op?: unknown } | null)?.op;
        if (op === 'create' && quirk === 'bad-create-closes-the-store') {
          const previous = store;
          store = undefined;
          await previous?.close();
        }
        const link = op === 'create' ? ((req as { args?: { noticeLink?: unknown }[] }).args?.[0]?.noticeLink) : undefined;
        const name = quirk === 'template-schema-is-validation' && link !== undefined && (typeof link !== 'string' || link === '') ? 'ValidationError' : 'ProtocolError';
        write({ id, ok: false, error: { name, message: `not a WireRequest${first ? `: ${first.instancePath} ${first.message}` : ''}`, ...(name === 'ValidationError' ? { field: 'noticeLink' } : {}) } });
        return;
      }
      now = req.now; // the driver's clock, until the next request
      try {
        let result: unknown = null;
        switch (req.op) {
          case 'hello':
            result = { protocol: WIRE_PROTOCOL_VERSION, implementation, ...(lacks !== undefined && lacks.length > 0 ? { lacks: [...lacks] } : {}) };
            break;
          case 'create': {
            const previous = store;
            if (quirk === 'keeps-the-store-after-refusal') {
              store = await factory({ now: clock, ...req.args[0] });
              await previous?.close();
            } else {
              store = undefined;
              await previous?.close();
              store = await factory({ now: clock, ...req.args[0] });
            }
            const backing = sharing?.backingOf(store);
            if (backing !== undefined) {
              if (quirk === 'handle-inherits-options') writeFileSync(`${backing}.options.json`, JSON.stringify(req.args[0]));
              result = { backing } satisfies WireCreated;
            }
            break;
          }
          case 'openHandle': {
            const previous = store;
            store = undefined;
            await previous?.close();
            if (!sharing) throw Object.assign(new Error('this implementation cannot open a handle on a store made by another process (W8)'), { name: 'ProtocolError' });
            const { backing, ...limits } = req.args[0];
            const inherited = quirk === 'handle-inherits-options' && existsSync(`${backing}.options.json`) ? (JSON.parse(readFileSync(`${backing}.options.json`, 'utf8')) as object) : {};
            store = await sharing.open(backing, { now: clock, ...inherited, ...limits });
            break;
          }
          case 'shutdown':
            write({ id, ok: true, result: null });
            await finish();
            return;
          default: {
            if (!store) throw Object.assign(new Error('no store is open: send create first'), { name: 'ProtocolError' });
            const op: StoreOp = req.op;
            if (!STORE_OPS.includes(op)) throw new Error(`unknown op ${op}`);
            const fn = (store as unknown as Record<string, (...a: unknown[]) => unknown>)[op]!;
            result = (await fn.apply(store, req.args)) ?? null;
            if (op === 'close') store = undefined;
          }
        }
        write({ id, ok: true, result });
      } catch (error) {
        write({ id, ok: false, error: toWireError(error) });
      }
    };

    // W1: LF bytes frame the requests, never U+2028/U+2029 inside a JSON string (conformance/lines.ts).
    lines = readLines(
      io.input,
      (line) => {
        for (const part of quirk === 'splits-at-cr' ? line.split('\r') : [line]) chain = chain.then(() => handle(part));
      },
      () => {
        chain = chain.then(finish);
      },
    );
  });
}
