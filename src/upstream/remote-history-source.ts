import { LIMITS } from '../../spec/index.js';
import { observeRemoteHistory, parseRemoteMarker, remoteBaseline, type Observation } from '../core/upstream/index.js';
import type { SourceTarget, UpstreamSource } from './types.js';

/**
 * U7: the paired node's history call, injected by the runtime: the newest `limit` items of the
 * thread, newest first, shaped like transcript entries. It throws on any failure; it has no way
 * to say "this thread is definitively gone", so remote sources never report missing.
 */
export type RemoteHistoryCall = (request: SourceTarget & { limit: number }, signal?: AbortSignal) => Promise<readonly unknown[]>;

export interface RemoteHistorySourceOptions {
  fetchHistory: RemoteHistoryCall;
  /** Link kind this adapter serves; default `claude-remote`. */
  kind?: string;
  /** U7: items classified per check; LIMITS.remoteHistoryWindow (50). */
  window?: number;
}

export function createRemoteHistorySource(options: RemoteHistorySourceOptions): UpstreamSource {
  const kind = options.kind ?? 'claude-remote';
  const window = options.window ?? LIMITS.remoteHistoryWindow;
  if (!Number.isSafeInteger(window) || window < 1) throw new RangeError('window must be a positive integer');

  async function fetchItems(target: SourceTarget, signal?: AbortSignal): Promise<readonly unknown[] | undefined> {
    const items = await options.fetchHistory({ hostId: target.hostId, threadId: target.threadId, ref: target.ref, limit: window }, signal);
    return Array.isArray(items) ? items : undefined;
  }

  return {
    kind,
    async baseline(target, signal) {
      const items = await fetchItems(target, signal);
      const marker = items === undefined ? undefined : remoteBaseline(items);
      if (marker === undefined) throw new Error('remote history cannot anchor a marker (no items array, or the newest item has no id)');
      return marker;
    },
    async check(target, signal): Promise<Observation> {
      const marker = parseRemoteMarker(target.marker);
      if (!marker) return { status: 'inconclusive', detail: 'stored marker is not a remote history marker' };
      const items = await fetchItems(target, signal);
      if (items === undefined) return { status: 'inconclusive', detail: 'remote history answer is not a list' };
      return observeRemoteHistory(marker, items, window);
    },
  };
}
