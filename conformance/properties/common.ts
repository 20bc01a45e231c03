/**
 * What every property file shares: the property shape and small helpers over commands and notices.
 */
import fc from 'fast-check';
import type { Notice, StoreFactory, WireCapability } from '../../spec/index.js';
import type { Draft } from '../arbitraries.js';
import type { HandleFactory } from '../handles.js';
import { canonical, type Command, humanDuration, type Outcome, type Scenario, T0 } from '../script.js';

/** What a property's check runs against: the implementation under test, the reference oracle and the run's settings. */
export interface PropertyContext {
  /** The implementation under test (its first handle's factory). */
  factory: StoreFactory;
  /** The same with openHandle, for the properties that spread commands over handles. */
  target: HandleFactory;
  /** The oracle (only `model` uses it); with openHandle when `handles` > 1. */
  reference: HandleFactory;
  /** Handles per store in multi-handle mode (1: the ordinary mode). */
  handles: number;
  thorough: boolean;
  /** W4: what the implementation said it lacks; the fixed vectors that need it are skipped through `skip`. */
  lacks: readonly WireCapability[];
  /** Reports a part of a fixed property that was not run, and why. */
  skip: (name: string, reason: string) => void;
}

/** What an arbitrary is told about the run. */
export interface ArbitraryOptions {
  thorough: boolean;
  /** Handles per store (1 unless the run is in multi-handle mode); commands may name 0..handles-1. */
  handles: number;
}

/** One property of the conformance suite: the rules it checks, how to generate its scenarios and how to judge one. */
export interface ConformanceProperty {
  name: string;
  rules: string[];
  title: string;
  /** Default number of generated cases (fast-check numRuns). */
  runs: number;
  /** Fixed scenarios run once, whatever --runs says. */
  fixed?: boolean;
  /** Runs only in multi-handle mode (a target with openHandle and handles > 1). */
  multiHandle?: boolean;
  /** Judges an optional contract method; not run (and reported so) when the target does not offer it. */
  optionalMethod?: 'recordMany';
  /** W4: what this property judges that an implementation may say it lacks (`hello`'s `lacks`); not run, and reported so, when it does. */
  needs?: readonly WireCapability[];
  /** The fast-check arbitrary of this property's scenarios. */
  arbitrary(options: ArbitraryOptions): fc.Arbitrary<Scenario>;
  /** Runs one scenario against the implementation; rejects with a readable message when it breaks a rule. */
  check(scenario: Scenario, ctx: PropertyContext): Promise<void>;
}

export type Input = Record<string, unknown>;

export const len = (thorough: boolean, n: number) => (thorough ? Math.round(n * 2.5) : n);

export function forTarget(notices: readonly Notice[], key: string, agentId: string): Notice[] {
  return notices.filter((n) => n.targetSessionKey === key && n.targetAgentId === agentId);
}

export function recordInput(cmd: Command): Input | undefined {
  return cmd.op === 'record' && cmd.args[0] !== null && typeof cmd.args[0] === 'object' ? (cmd.args[0] as Input) : undefined;
}

export const show = (v: unknown) => canonical(v);

/** A clock reading relative to the scripts' start (T0). */
export function clockText(t: number): string {
  return t === T0 ? 'the start' : `start ${t > T0 ? '+' : '-'} ${humanDuration(Math.abs(t - T0))}`;
}

export function ok(result: unknown): Outcome {
  return { ok: true, result };
}

export function drainDraftOf(w: string): Draft {
  return { cmd: { op: 'drainNotices', args: [w] } };
}

/** Spreads commands over handles: each command (clock advances excepted) gets one of `handles`. */
export function onHandles(drafts: fc.Arbitrary<Draft[]>, handles: number): fc.Arbitrary<Draft[]> {
  if (handles <= 1) return drafts;
  return drafts.chain((ds) =>
    fc.array(fc.nat({ max: handles - 1 }), { minLength: ds.length, maxLength: ds.length }).map((hs) =>
      ds.map((d, i) => (d.cmd.op === 'advance' ? d : { ...d, cmd: { ...d.cmd, handle: hs[i]! } })),
    ),
  );
}
