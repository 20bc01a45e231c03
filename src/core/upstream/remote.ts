import { LIMITS } from '../../../spec/index.js';
import type { Observation, UpstreamTurn } from './check.js';
import { classifyClaudeEntry, isRecord, type ClassifyOptions } from './classify.js';
import type { JsonObject, JsonValue } from './link.js';

/**
 * U7: paired-node history, the pure half. The remote call returns one page of history items,
 * newest first (`before`: only items older than that id), shaped like transcript entries, and
 * the U6 classification applies. The marker is the newest item id seen (`{id}`, null when the
 * thread was empty at adoption), plus, while a burst larger than one check's pages is being read,
 * `paging: {newest, before}`: items from `newest` down to (not including) `before` were read;
 * the ones between `before` and `id` are read by the next checks.
 */
export interface RemoteMarker {
  id: string | null;
  paging?: { newest: string; before: string };
}

/** Pages read per check by default: 4 x 50 items. */
export const DEFAULT_REMOTE_PAGES = 4;

/** U7: reads a persisted remote history marker; undefined if the value is not one. */
export function parseRemoteMarker(value: JsonValue): RemoteMarker | undefined {
  if (!isRecord(value)) return undefined;
  const id = value['id'];
  let marker: RemoteMarker;
  if (id === null) marker = { id: null };
  else if (typeof id === 'string' && id.length > 0) marker = { id };
  else return undefined;
  const p = value['paging'];
  if (isRecord(p) && typeof p['newest'] === 'string' && typeof p['before'] === 'string') marker.paging = { newest: p['newest'], before: p['before'] };
  return marker;
}

/** U7: the JSON form of a remote history marker, for persisting. */
export function remoteMarkerJson(marker: RemoteMarker): JsonObject {
  const out: JsonObject = { id: marker.id };
  if (marker.paging) out['paging'] = { newest: marker.paging.newest, before: marker.paging.before };
  return out;
}

/** An item's id: `uuid` (Claude transcripts) or `id`; undefined when it has neither. */
export function remoteItemId(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  const id = item['uuid'] ?? item['id'];
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
 * U7: one check's paging over remote history: ask for pages with `next`, feed each with `accept`, then read the `observation`.
 */
export interface RemotePager {
  /** The next page to ask for (`before` absent: the newest page), or undefined when done. */
  next(): { before?: string } | undefined;
  /** One page's answer, newest first. */
  accept(items: readonly unknown[]): void;
  /** The check's conclusion from the pages read so far (found with new turns, or inconclusive). */
  observation(): Observation;
}

/**
 * U7: pages back from the newest item until the marker is found, at most `maxPages` pages of
 * `window` items per check; a burst larger than that is resumed on the next check from where this
 * one stopped (`paging`), so no item is missed. First the new top is read down to what was read
 * before (`paging.newest`, or the marker), then the remaining gap. The answer never proves the
 * thread is gone: an empty newest page or an id-less item is inconclusive, never missing.
 */
export function createRemotePager(marker: RemoteMarker, window: number = LIMITS.remoteHistoryWindow, maxPages: number = DEFAULT_REMOTE_PAGES, options: ClassifyOptions = {}): RemotePager {
  let phase: 'top' | 'back' | 'done' = 'top';
  let pages = 0;
  let cursor: string | undefined;
  let failed: string | undefined;
  let newestId: string | undefined;
  let lostMarker = false;
  let ignoresBefore = false;
  // Ids of the items read so far (an item without an id is never in it).
  const seen = new Set<string | undefined>();
  const top: unknown[] = [];
  const back: unknown[] = [];
  let topDone = false;
  let backDone = marker.paging === undefined;

  const finish = () => {
    if (phase === 'top') {
      topDone = true;
      if (marker.paging) {
        phase = 'back';
        cursor = marker.paging.before;
        return;
      }
    } else backDone = true;
    phase = 'done';
  };

  return {
    next() {
      if (failed !== undefined || phase === 'done' || pages >= maxPages) return undefined;
      return cursor === undefined ? {} : { before: cursor };
    },
    accept(items) {
      pages++;
      const page = items.slice(0, window);
      if (pages === 1) {
        // The first page is always the newest (phase top).
        if (page.length === 0) {
          failed = 'remote history returned no items';
          return;
        }
        newestId = remoteItemId(page[0]);
        if (newestId === undefined) {
          failed = 'newest remote history item has no id';
          return;
        }
      }
      // On the first page nothing is seen yet, so this only fires on a page asked with `before`.
      if (page.some((item) => seen.has(remoteItemId(item)))) {
        // A history call that ignores `before` (written for the one-page protocol) answered the
        // same items again: stop paging rather than count them twice, and say what may be missed.
        ignoresBefore = true;
        topDone = true;
        backDone = true;
        phase = 'done';
        return;
      }
      for (const item of page) {
        const id = remoteItemId(item);
        if (id !== undefined) seen.add(id);
      }
      const stop = phase === 'top' ? (marker.paging?.newest ?? marker.id) : marker.id;
      // A null stop (thread empty at adoption) matches no item: ids are strings.
      const at = page.findIndex((item) => remoteItemId(item) === stop);
      const into = phase === 'top' ? top : back;
      if (at >= 0) {
        into.push(...page.slice(0, at));
        finish();
        return;
      }
      into.push(...page);
      if (page.length < window) {
        // The start of the thread: everything is read. A marker that is not there was deleted upstream.
        if (stop !== null) lostMarker = true;
        finish();
        return;
      }
      const last = remoteItemId(page[page.length - 1]);
      if (last === undefined) {
        failed = 'remote history item without id; cannot page back';
        return;
      }
      cursor = last;
    },
    observation(): Observation {
      if (failed !== undefined) return { status: 'inconclusive', detail: failed };
      if (newestId === undefined) return { status: 'inconclusive', detail: 'remote history was not read' };
      const fresh = [...top, ...back];
      const turns: UpstreamTurn[] = [];
      // Oldest first.
      for (const item of [...fresh].reverse()) {
        const c = classifyClaudeEntry(item, options);
        if (!c.human) continue;
        const t: UpstreamTurn = { text: c.text };
        if (c.images > 0) t.images = c.images;
        if (c.occurredAt !== undefined) t.occurredAt = c.occurredAt;
        turns.push(t);
      }
      if (topDone && backDone) {
        const obs: Observation = { status: 'found', turns, nextMarker: remoteMarkerJson({ id: newestId }), position: newestId };
        if (ignoresBefore) obs.note = 'the history call ignores `before`: only its newest page was read; older items may have been missed';
        else if (lostMarker) obs.note = 'the marker item is no longer in the history; everything after the thread start was read';
        return obs;
      }
      let next: RemoteMarker;
      let note = `paging back: ${fresh.length} new item(s) read, continuing next check`;
      if (!topDone) {
        const before = remoteItemId(top[top.length - 1])!;
        if (marker.paging) {
          // Two gaps would open: the older one is given up, and the status says so.
          next = { id: marker.paging.newest, paging: { newest: newestId, before } };
          note += `; more than ${maxPages * window} new items per check while paging: items older than ${marker.paging.before} were missed`;
        } else next = { id: marker.id, paging: { newest: newestId, before } };
      } else {
        const before = back.length > 0 ? remoteItemId(back[back.length - 1])! : marker.paging!.before;
        next = { id: marker.id, paging: { newest: newestId, before } };
      }
      return { status: 'found', turns, nextMarker: remoteMarkerJson(next), position: `${newestId}~${next.paging!.before}`, note };
    },
  };
}

/** U7: one page, one check (the pager with a single page); kept for callers of the v1 shape. */
export function observeRemoteHistory(marker: RemoteMarker, itemsNewestFirst: readonly unknown[], window: number = LIMITS.remoteHistoryWindow): Observation {
  // A new pager always asks for its first (newest) page.
  const pager = createRemotePager(marker, window, 1);
  pager.accept(itemsNewestFirst);
  return pager.observation();
}
