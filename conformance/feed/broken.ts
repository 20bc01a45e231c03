import type { PendingRead, PendingReadRequest } from '../../spec/index.js';
import { MemoryStore, createMemoryStore } from '../../src/memory/index.js';
import type { PendingReadSubject } from './pending-reads.js';

/**
 * Deliberately broken change-feed sources, kept so the pending-reads property (pending-reads.ts)
 * proves it can fail: each misses a kind of news a plausible implementation misses.
 */

/** A memory store whose reads go through `filter`, which sees each read and what was pending at the previous one. */
class FilteredReads extends MemoryStore {
  private pendingAtLastRead = new Set<string>();

  constructor(private readonly filter: (read: PendingRead, pendingBefore: ReadonlySet<string>, request: PendingReadRequest) => PendingRead) {
    super({ now: () => 1_767_225_600_000 });
  }

  override readPending(request: PendingReadRequest): PendingRead {
    const read = this.filter(super.readPending(request), this.pendingAtLastRead, request);
    this.pendingAtLastRead = new Set(this.listPending().map(slot));
    return read;
  }
}

const slot = (p: { watcherSessionKey: string; targetSessionKey: string; targetAgentId: string }) => `${p.watcherSessionKey}\u0000${p.targetAgentId}\u0000${p.targetSessionKey}`;

export const brokenSources: Record<string, { breaks: string; open: () => PendingReadSubject }> = {
  /** Tags a pair only when it turns pending from idle: an ack that re-opens (R28) or a promotion that wakes (R25) goes unreported. */
  'idle-to-pending-only': {
    breaks: 'R68: reports a pair only when it becomes pending from idle; a re-opened follow-up (new L) or a woken ambient pair is missed',
    open: () => new FilteredReads((read, before) => ({ ...read, changes: read.changes.filter((c) => !(c.pending && before.has(slot(c)))) })),
  },
  /** Reads `changed >= position + 1` off by one: the newest change of each read is left out. */
  'drops-newest-change': {
    breaks: 'R68: an off-by-one on the position leaves the newest change of each read out',
    open: () => new FilteredReads((read) => ({ ...read, changes: read.changes.slice(0, -1) })),
  },
  /** Answers a read that names its watchers with the first named watcher's changes only. */
  'first-named-watcher-only': {
    breaks: 'R68: a read naming several watchers gets the changes of the first one only',
    open: () =>
      new FilteredReads((read, _before, request) =>
        request.watchers === undefined || request.watchers.length < 2 ? read : { ...read, changes: read.changes.filter((c) => c.watcherSessionKey === request.watchers![0]) },
      ),
  },
};

/** The reference: the memory store itself. */
export function memorySubject(): PendingReadSubject {
  return createMemoryStore({ now: () => 1_767_225_600_000 });
}
