/**
 * What every property file shares: the property shape and small helpers over commands and notices.
 */
import fc from 'fast-check';
import type { Notice, StoreFactory } from '../../spec/index.js';
import type { Draft } from '../arbitraries.js';
import { canonical, type Command, humanDuration, type Outcome, type Scenario, T0 } from '../script.js';

export interface PropertyContext {
  /** The implementation under test. */
  factory: StoreFactory;
  /** The oracle (only `model` uses it). */
  reference: StoreFactory;
  thorough: boolean;
}

export interface ConformanceProperty {
  name: string;
  rules: string[];
  title: string;
  /** Default number of generated cases (fast-check numRuns). */
  runs: number;
  /** Fixed scenarios run once, whatever --runs says. */
  fixed?: boolean;
  arbitrary(options: { thorough: boolean }): fc.Arbitrary<Scenario>;
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
