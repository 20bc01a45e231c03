import { LIMITS } from '../../../spec/index.js';
import type { Observation, UpstreamTurn } from './check.js';
import { classifyClaudeEntry } from './classify.js';
import type { JsonObject, JsonValue } from './link.js';

/**
 * U7: paired-node history, the pure half. The remote call returns the newest history items,
 * newest first, shaped like transcript entries (`uuid` or `id`, `type`, `message`, ...), and the
 * same classification as U6 applies. The marker is the newest item id seen: `{id}` (null when
 * the thread was empty at adoption).
 */
export interface RemoteMarker {
  id: string | null;
}

export function parseRemoteMarker(value: JsonValue): RemoteMarker | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const id = value['id'];
  if (id === null) return { id: null };
  return typeof id === 'string' && id.length > 0 ? { id } : undefined;
}

export function remoteMarkerJson(marker: RemoteMarker): JsonObject {
  return { id: marker.id };
}

/** An item's id: `uuid` (Claude transcripts) or `id`; undefined when it has neither. */
export function remoteItemId(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const rec = item as Record<string, unknown>;
  const id = rec['uuid'] ?? rec['id'];
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/**
 * U3: the marker of a newly linked remote thread. An empty history links with `{id: null}`; a
 * newest item without an id cannot anchor a marker, so the link is declined (undefined).
 */
export function remoteBaseline(itemsNewestFirst: readonly unknown[]): JsonObject | undefined {
  if (itemsNewestFirst.length === 0) return remoteMarkerJson({ id: null });
  const id = remoteItemId(itemsNewestFirst[0]);
  return id === undefined ? undefined : remoteMarkerJson({ id });
}

/**
 * U7: classify at most `window` newest items. Items newer than the marker are new; when the
 * marker is not in the window, every item in it is new and anything older was missed (a burst
 * larger than the window, reported as a note). The answer never proves the thread is gone, so
 * this never returns `missing`; an empty window or an id-less newest item is inconclusive.
 */
export function observeRemoteHistory(marker: RemoteMarker, itemsNewestFirst: readonly unknown[], window: number = LIMITS.remoteHistoryWindow): Observation {
  const items = itemsNewestFirst.slice(0, window);
  if (items.length === 0) return { status: 'inconclusive', detail: 'remote history returned no items' };
  const newestId = remoteItemId(items[0]);
  if (newestId === undefined) return { status: 'inconclusive', detail: 'newest remote history item has no id' };
  const at = marker.id === null ? -1 : items.findIndex((item) => remoteItemId(item) === marker.id);
  const fresh = at >= 0 ? items.slice(0, at) : items;
  const turns: UpstreamTurn[] = [];
  for (let i = fresh.length - 1; i >= 0; i--) {
    const c = classifyClaudeEntry(fresh[i]);
    if (c.human) turns.push(c.occurredAt === undefined ? { text: c.text } : { text: c.text, occurredAt: c.occurredAt });
  }
  const obs: Observation = { status: 'found', turns, nextMarker: remoteMarkerJson({ id: newestId }), position: newestId };
  if (at < 0 && marker.id !== null) obs.note = `marker not in the newest ${window} items; older items may have been missed`;
  return obs;
}
