/**
 * One store under test with its clock, stepping through a script. Properties use it to execute
 * the script's commands (numbered steps) and to make extra read-only observations between them
 * (pendingNotices, stateVersion: R26, R34 promise these change nothing).
 */
import type { CreateOptions, Notice, SessionStateStore } from '../spec/index.js';
import { asHandleFactory, type ConformanceTarget } from './handles.js';
import {
  Clock,
  ConformanceFailure,
  callStore,
  closeQuietly,
  describeOutcome,
  execute,
  formatCommand,
  type Command,
  type Outcome,
  type ScenarioOptions,
  type ScriptOp,
} from './script.js';

export class Run {
  step = 0;
  current: Command | undefined;
  /** Set once the script is over and the property only observes. */
  inEpilogue = false;

  private constructor(
    /** The handles on one backing store (multi-handle mode); one in the ordinary mode. */
    readonly stores: SessionStateStore[],
    readonly clock: Clock,
  ) {}

  /** The first handle: where every command without a `handle` runs, and the default observer. */
  get store(): SessionStateStore {
    return this.stores[0]!;
  }

  /**
   * A fresh store and, with `handles` > 1, that many handles on it (the target's openHandle), all
   * on one clock and opened before the first step.
   */
  static async open(target: ConformanceTarget, options: ScenarioOptions, handles = 1): Promise<Run> {
    const clock = new Clock();
    const f = asHandleFactory(target);
    const o: CreateOptions = { now: clock.now };
    if (options.retentionMs !== undefined) o.retentionMs = options.retentionMs;
    if (options.maxRows !== undefined) o.maxRows = options.maxRows;
    const stores: SessionStateStore[] = [];
    try {
      stores.push(await f.create({ ...o }));
      for (let i = 1; i < handles; i++) {
        if (!f.openHandle) throw new Error(`${handles} handles need a factory with openHandle`);
        stores.push(await f.openHandle(stores[0]!, { ...o }));
      }
    } catch (error) {
      for (const s of stores.reverse()) await closeQuietly(s);
      throw new ConformanceFailure(0, `the factory threw while ${stores.length === 0 ? 'creating a store' : `opening handle ${stores.length}`}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new Run(stores, clock);
  }

  /** The handle a command names (0 when it names none). */
  on(handle = 0): SessionStateStore {
    const s = this.stores[handle];
    if (!s) throw new ConformanceFailure(this.step, `the script names handle ${handle}, but only ${this.stores.length} are open`);
    return s;
  }

  /** Executes the next scripted command, on the handle it names. */
  async do(cmd: Command): Promise<Outcome> {
    this.step++;
    this.current = cmd;
    return execute(this.on(cmd.handle), this.clock, cmd);
  }

  fail(message: string): never {
    const at = this.inEpilogue
      ? `in the final observations after the last step`
      : this.current
        ? `after step ${this.step} ${formatCommand(this.current)}`
        : 'before the first step';
    throw new ConformanceFailure(this.inEpilogue ? 0 : this.step, `${message}\n  (${at})`);
  }

  epilogue(): void {
    this.inEpilogue = true;
  }

  /** An extra observation that must succeed. */
  async must<T>(op: Exclude<ScriptOp, 'advance' | 'repeatRecord'>, ...args: unknown[]): Promise<T> {
    return this.mustOn<T>(0, op, ...args);
  }

  /** The same, through one handle. */
  async mustOn<T>(handle: number, op: Exclude<ScriptOp, 'advance' | 'repeatRecord'>, ...args: unknown[]): Promise<T> {
    const o = await callStore(this.on(handle), op, args);
    if (!o.ok) this.fail(`${this.stores.length > 1 ? `[handle ${handle}] ` : ''}${op}(${args.map((a) => JSON.stringify(a)).join(', ')}) ${describeOutcome(o)}`);
    return o.result as T;
  }

  /** The command's own result, which must be a success. */
  ok<T>(o: Outcome, what = 'the command'): T {
    if (!o.ok) this.fail(`${what} ${describeOutcome(o)}`);
    return o.result as T;
  }

  pending(watcher: string, handle = 0): Promise<Notice[]> {
    return this.mustOn<Notice[]>(handle, 'pendingNotices', watcher);
  }

  async pendingAll(watchers: readonly string[]): Promise<Map<string, Notice[]>> {
    const out = new Map<string, Notice[]>();
    for (const w of watchers) out.set(w, await this.pending(w));
    return out;
  }

  /** Closes the extra handles first, then the first (the one that made the store). */
  async close(): Promise<void> {
    for (const s of [...this.stores].reverse()) await closeQuietly(s);
  }
}

/** Opens a run (with `handles` handles), hands it to `body`, and always closes the store. */
export async function withRun<T>(factory: ConformanceTarget, options: ScenarioOptions, body: (run: Run) => Promise<T>, handles = 1): Promise<T> {
  const run = await Run.open(factory, options, handles);
  try {
    return await body(run);
  } finally {
    await run.close();
  }
}
