/**
 * One store under test with its clock, stepping through a script. Properties use it to execute
 * the script's commands (numbered steps) and to make extra read-only observations between them
 * (pendingNotices, stateVersion: R26, R34 promise these change nothing).
 */
import type { Notice, SessionStateStore, StoreFactory } from '../spec/index.js';
import {
  Clock,
  ConformanceFailure,
  callStore,
  closeQuietly,
  describeOutcome,
  execute,
  formatCommand,
  openStore,
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
    readonly store: SessionStateStore,
    readonly clock: Clock,
  ) {}

  static async open(factory: StoreFactory, options: ScenarioOptions): Promise<Run> {
    const clock = new Clock();
    let store: SessionStateStore;
    try {
      store = await openStore(factory, clock, options);
    } catch (error) {
      throw new ConformanceFailure(0, `the factory threw while creating a store: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new Run(store, clock);
  }

  /** Executes the next scripted command. */
  async do(cmd: Command): Promise<Outcome> {
    this.step++;
    this.current = cmd;
    return execute(this.store, this.clock, cmd);
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
  async must<T>(op: Exclude<ScriptOp, 'advance' | 'recordMany'>, ...args: unknown[]): Promise<T> {
    const o = await callStore(this.store, op, args);
    if (!o.ok) this.fail(`${op}(${args.map((a) => JSON.stringify(a)).join(', ')}) ${describeOutcome(o)}`);
    return o.result as T;
  }

  /** The command's own result, which must be a success. */
  ok<T>(o: Outcome, what = 'the command'): T {
    if (!o.ok) this.fail(`${what} ${describeOutcome(o)}`);
    return o.result as T;
  }

  pending(watcher: string): Promise<Notice[]> {
    return this.must<Notice[]>('pendingNotices', watcher);
  }

  async pendingAll(watchers: readonly string[]): Promise<Map<string, Notice[]>> {
    const out = new Map<string, Notice[]>();
    for (const w of watchers) out.set(w, await this.pending(w));
    return out;
  }

  close(): Promise<void> {
    return closeQuietly(this.store);
  }
}

/** Opens a run, hands it to `body`, and always closes the store. */
export async function withRun<T>(factory: StoreFactory, options: ScenarioOptions, body: (run: Run) => Promise<T>): Promise<T> {
  const run = await Run.open(factory, options);
  try {
    return await body(run);
  } finally {
    await run.close();
  }
}
