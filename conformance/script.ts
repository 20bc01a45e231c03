/**
 * The script language of the suite: plain-data commands over the contract methods, plus two
 * driver-side commands (`advance` moves the clock, `repeatRecord` repeats one record). Scripts are
 * what fast-check generates and shrinks, what a counterexample prints as, and what the fixed
 * vectors store, so every failure can be read, replayed, and run by another language.
 */
import type { CreateOptions, SessionStateStore, StoreFactory, StoreOp } from '../spec/index.js';

/**
 * The operation of one script command: a contract method, or `advance` (move the clock) or `repeatRecord` (one record input, recorded `count` times).
 */
export type ScriptOp = Exclude<StoreOp, 'close'> | 'advance' | 'repeatRecord';

/** One command of a generated scenario: an operation with its positional arguments, on one handle. */
export interface Command {
  op: ScriptOp;
  args: unknown[];
  /** Multi-handle mode (conformance/handles.ts): which handle runs it; absent means the first (0). */
  handle?: number;
}

/** Store options of a scenario (the clock is the driver's). */
export interface ScenarioOptions {
  retentionMs?: number;
  maxRows?: number;
  /** R23b: the store's notice link template. */
  noticeLink?: string;
}

/** A generated test case: the store options and the command script run against the implementation. */
export interface Scenario {
  options: ScenarioOptions;
  commands: Command[];
  /** Roles a structured scenario assigns (watcher, target, ...); printed with the script. */
  meta?: Record<string, string>;
}

/** What one command produced: its result, or the error (compared by name and, for ValidationError, field, R9). */
export type Outcome = { ok: true; result: unknown } | { ok: false; error: { name: string; field?: string; message?: string } };

/** 2026-01-01T00:00:00Z: every scenario starts here. */
export const T0 = Date.UTC(2026, 0, 1);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export class Clock {
  constructor(public t: number = T0) {}
  readonly now = (): number => this.t;
}

/** A failure a property reports: which step (1-based, 0 = setup/epilogue) and what went wrong. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
  constructor(
    readonly step: number,
    message: string,
  ) {
    super(message);
  }
}

/** JSON with sorted keys: equality of observable results ignores key order, and undefined is null. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value === undefined ? null : value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** A plain JSON copy of a result (what travels on the wire and lands in vectors). */
export function plain(value: unknown): unknown {
  return JSON.parse(canonical(value));
}

export function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export function errorOutcome(error: unknown): Outcome {
  if (error !== null && typeof error === 'object') {
    const e = error as { name?: unknown; field?: unknown; message?: unknown };
    const name = typeof e.name === 'string' && e.name ? e.name : 'Error';
    const out: { name: string; field?: string; message?: string } = { name };
    if (name === 'ValidationError' && typeof e.field === 'string') out.field = e.field;
    if (typeof e.message === 'string') out.message = e.message;
    return { ok: false, error: out };
  }
  return { ok: false, error: { name: 'Error', message: String(error) } };
}

/** Outcomes are equal when results are equal JSON, or when both threw the same error name and field. */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.ok && b.ok) return same(a.result, b.result);
  if (!a.ok && !b.ok) return a.error.name === b.error.name && a.error.field === b.error.field;
  return false;
}

export function describeOutcome(o: Outcome): string {
  if (o.ok) return truncate(canonical(o.result), 600);
  return `throws ${o.error.name}${o.error.field !== undefined ? ` (field ${o.error.field})` : ''}${o.error.message ? `: ${truncate(o.error.message, 160)}` : ''}`;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s;
}

/** Calls one contract method; the store may answer synchronously or with a promise. */
export async function callStore(store: SessionStateStore, op: Exclude<ScriptOp, 'advance' | 'repeatRecord'>, args: unknown[]): Promise<Outcome> {
  try {
    const fn = (store as unknown as Record<string, (...a: unknown[]) => unknown>)[op];
    if (typeof fn !== 'function') return { ok: false, error: { name: 'TypeError', message: `the store has no method ${op}` } };
    const result = await fn.apply(store, args);
    return { ok: true, result: result === undefined ? null : plain(result) };
  } catch (error) {
    return errorOutcome(error);
  }
}

/** Executes one command (clock commands included) against a store driven by `clock`. */
export async function execute(store: SessionStateStore, clock: Clock, cmd: Command): Promise<Outcome> {
  if (cmd.op === 'advance') {
    clock.t += cmd.args[0] as number;
    return { ok: true, result: null };
  }
  if (cmd.op === 'repeatRecord') {
    const [input, count] = cmd.args as [unknown, number];
    const results: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const o = await callStore(store, 'record', [input]);
      if (!o.ok) return o;
      results.push(o.result);
    }
    return { ok: true, result: results };
  }
  return callStore(store, cmd.op, cmd.args);
}

/** Expands driver-side macros (repeatRecord) into plain store calls, keeping clock advances. */
export function expand(commands: readonly Command[]): Command[] {
  const out: Command[] = [];
  for (const c of commands) {
    if (c.op === 'repeatRecord') for (let i = 0; i < (c.args[1] as number); i++) out.push({ op: 'record', args: [c.args[0]] });
    else out.push(c);
  }
  return out;
}

export async function openStore(factory: StoreFactory, clock: Clock, options: ScenarioOptions): Promise<SessionStateStore> {
  const o: CreateOptions = { now: clock.now };
  if (options.retentionMs !== undefined) o.retentionMs = options.retentionMs;
  if (options.maxRows !== undefined) o.maxRows = options.maxRows;
  if (options.noticeLink !== undefined) o.noticeLink = options.noticeLink;
  return factory(o);
}

export async function closeQuietly(store: SessionStateStore | undefined): Promise<void> {
  try {
    await store?.close();
  } catch {
    // a failing close must not hide the property's own verdict
  }
}

// ---- readable scripts -------------------------------------------------------------------------

export function humanDuration(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms >= DAY) return `${Math.floor(ms / DAY)}d ${humanDuration(ms % DAY)}`;
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  if (ms >= HOUR) return `${Math.floor(ms / HOUR)}h ${humanDuration(ms % HOUR)}`;
  if (ms % MINUTE === 0) return `${ms / MINUTE}m`;
  if (ms >= MINUTE) return `${Math.floor(ms / MINUTE)}m ${humanDuration(ms % MINUTE)}`;
  return `${ms}ms`;
}

function argText(a: unknown): string {
  return a === undefined ? 'undefined' : JSON.stringify(a);
}

/** One line per command: `op(args...)`, valid JSON arguments, so a line can be pasted back. */
export function formatCommand(cmd: Command): string {
  if (cmd.handle !== undefined && cmd.op !== 'advance') return `[handle ${cmd.handle}] ${formatCommand({ op: cmd.op, args: cmd.args })}`;
  if (cmd.op === 'advance') {
    const ms = cmd.args[0] as number;
    return `advance(${ms})  // clock ${ms < 0 ? '-' : '+'}${humanDuration(Math.abs(ms))}`;
  }
  return `${cmd.op}(${cmd.args.map(argText).join(', ')})`;
}

export function formatOptions(options: ScenarioOptions): string {
  const parts: string[] = [];
  if (options.retentionMs !== undefined) parts.push(`retentionMs: ${options.retentionMs} (${humanDuration(options.retentionMs)})`);
  if (options.maxRows !== undefined) parts.push(`maxRows: ${options.maxRows}`);
  return parts.length ? `{ ${parts.join(', ')} }` : '{} (the real LIMITS: 30 days, 50,000 rows)';
}

/** The numbered script of a counterexample; `failedStep` gets a marker. */
export function formatScript(scenario: Scenario, failedStep?: number): string {
  const width = String(scenario.commands.length).length;
  const lines = [`create(${formatOptions(scenario.options)}) at ${new Date(T0).toISOString()}`];
  if (scenario.meta) lines.unshift(`// roles: ${Object.entries(scenario.meta).map(([k, v]) => `${k} = ${v}`).join(', ')}`);
  scenario.commands.forEach((c, i) => {
    const n = String(i + 1).padStart(width, ' ');
    lines.push(`${failedStep === i + 1 ? '>' : ' '}${n}. ${formatCommand(c)}`);
  });
  return lines.join('\n');
}
