import { LIMITS } from '../../spec/index.js';
import { DEFAULT_REMOTE_PAGES, createRemotePager, parseRemoteMarker, remoteBaseline, type NotPersonMarker, type Observation } from '../core/upstream/index.js';
import type { SourceTarget, UpstreamSource } from './types.js';
import type { KitAbortSignal } from '../shared/abort.js';

/**
 * U7: the paired node's history call, injected by the runtime: at most `limit` items of the
 * thread, newest first, shaped like transcript entries; with `before`, only items older than the
 * item with that id (paging back). It throws on any failure; it has no way to say "this thread
 * is definitively gone", so remote sources never report missing.
 */
export type RemoteHistoryCall = (request: SourceTarget & { limit: number; before?: string }, signal?: KitAbortSignal) => Promise<readonly unknown[]>;

/** U7: options of createRemoteHistorySource: the injected history call, the link kind and the paging. */
export interface RemoteHistorySourceOptions {
  fetchHistory: RemoteHistoryCall;
  /** Link kind this adapter serves; default `claude-remote`. */
  kind?: string;
  /** U7: items per page; LIMITS.remoteHistoryWindow (50). */
  window?: number;
  /** U7: pages read per check (default 4); a larger burst is resumed on the next check. */
  maxPages?: number;
  /** U6: runtime-injected text forms that are not a person. */
  notPersonMarkers?: readonly NotPersonMarker[];
}

/** U7: a source over paired-node history read through `fetchHistory`; throws RangeError on a bad window or maxPages. */
export function createRemoteHistorySource(options: RemoteHistorySourceOptions): UpstreamSource {
  const kind = options.kind ?? 'claude-remote';
  const window = options.window ?? LIMITS.remoteHistoryWindow;
  const maxPages = options.maxPages ?? DEFAULT_REMOTE_PAGES;
  if (!Number.isSafeInteger(window) || window < 1) throw new RangeError('window must be a positive integer');
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) throw new RangeError('maxPages must be a positive integer');
  const classify = options.notPersonMarkers ? { notPersonMarkers: options.notPersonMarkers } : {};

  async function fetchItems(target: SourceTarget, signal?: KitAbortSignal, before?: string): Promise<readonly unknown[] | undefined> {
    const request = { hostId: target.hostId, threadId: target.threadId, ref: target.ref, limit: window, ...(before !== undefined && { before }) };
    const items = await options.fetchHistory(request, signal);
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
      const pager = createRemotePager(marker, window, maxPages, classify);
      for (let req = pager.next(); req; req = pager.next()) {
        signal?.throwIfAborted();
        const items = await fetchItems(target, signal, req.before);
        if (items === undefined) return { status: 'inconclusive', detail: 'remote history answer is not a list' };
        pager.accept(items);
      }
      return pager.observation();
    },
  };
}
