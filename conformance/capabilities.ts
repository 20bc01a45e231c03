import type { ConformanceVector, WireCapability } from '../spec/index.js';
import type { Command, Scenario } from './script.js';

/**
 * W4: what the suite does for an implementation that says it lacks part of the contract (`lacks`
 * in its `hello`). Scenarios lose the calls and options that need the missing part, so every other
 * rule is still judged on the commands that remain (the reference runs the same stripped script);
 * a property or vector that judges the missing part itself is reported as not run. Nothing
 * lacking is ever counted as passed.
 */

/** Whether one command needs a capability. */
function commandNeeds(cmd: Command, capability: WireCapability): boolean {
  switch (capability) {
    case 'unwatch':
      return cmd.op === 'unwatch';
    case 'recordMany':
      return cmd.op === 'recordMany';
    case 'ambientWatch':
      return cmd.op === 'watch' && (cmd.args[0] as { provenance?: unknown } | null)?.provenance === 'ambient';
    case 'limits':
    case 'noticeLink':
      return false;
  }
}

/** A scenario without what `lacks` names: its commands, and the store options it cannot take. */
export function withoutLacking(sc: Scenario, lacks: readonly WireCapability[]): Scenario {
  if (lacks.length === 0) return sc;
  const options = { ...sc.options };
  if (lacks.includes('limits')) {
    delete options.retentionMs;
    delete options.maxRows;
  }
  if (lacks.includes('noticeLink')) delete options.noticeLink;
  return { ...sc, options, commands: sc.commands.filter((c) => !lacks.some((l) => commandNeeds(c, l))) };
}

/** The capabilities a fixed vector needs, from its options and steps. */
export function vectorNeeds(v: ConformanceVector): WireCapability[] {
  const out = new Set<WireCapability>();
  if (v.options.retentionMs !== undefined || v.options.maxRows !== undefined) out.add('limits');
  if (v.options.noticeLink !== undefined) out.add('noticeLink');
  for (const s of v.steps) for (const c of ['unwatch', 'recordMany', 'ambientWatch'] as const) if (commandNeeds({ op: s.op as Command['op'], args: s.args }, c)) out.add(c);
  return [...out];
}
