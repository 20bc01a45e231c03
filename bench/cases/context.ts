import type { Mode } from '../lib/args.js';
import { buildEventLog, Workspace } from '../lib/fixtures.js';
import type { Progress } from '../lib/measure.js';
import type { CaseResult } from '../lib/report.js';
import { shortCount, type Plan } from '../plan.js';

export interface CaseContext {
  mode: Mode;
  plan: Plan;
  ws: Workspace;
  progress: Progress;
  /** A closed, checkpointed event log of `events` rows over 10k sessions, built once per run. Never write to it: copy it. */
  eventLog(events: number): string;
  /** Forces a full GC (the runner exposes it). */
  gc(): void;
}

export interface BenchGroup {
  /** `--filter` matches this; result ids start with it. */
  group: string;
  /** Synchronous for most groups; the feed's own groups await its signals. */
  run(ctx: CaseContext): CaseResult[] | Promise<CaseResult[]>;
}

export function templateCache(ws: Workspace, progress: Progress): (events: number) => string {
  const built = new Map<number, string>();
  return (events) => {
    let path = built.get(events);
    if (path === undefined) {
      progress(`bulk-loading a ${shortCount(events)}-event log`);
      path = ws.file(`template-${events}`);
      buildEventLog(path, events);
      built.set(events, path);
    }
    return path;
  };
}
