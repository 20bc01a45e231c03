import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import {
  DEFAULT_REMOTE_PAGES,
  createRemotePager,
  observeRemoteHistory,
  parseRemoteMarker,
  remoteBaseline,
  remoteItemId,
  remoteMarkerJson,
  type Observation,
  type RemoteMarker,
} from '../../src/core/upstream/index.js';

/** U7 paired-node history, the pure pager: stored markers, paging limits and resumption (mutation/). */

const T = '2026-01-01T00:00:00.000Z';
const user = (id: string, text = `m-${id}`, extra: Record<string, unknown> = {}) => ({ uuid: id, type: 'user', message: { role: 'user', content: text }, timestamp: T, ...extra });
const assistant = (id: string) => ({ uuid: id, type: 'assistant', message: { role: 'assistant', content: 'ok' } });

/** A thread of items oldest first; `page` answers newest first, at most `limit`, older than `before`. */
function thread(ids: string[]) {
  const items = ids.map((id) => user(id));
  const asked: (string | undefined)[] = [];
  const page = (before: string | undefined, limit: number) => {
    asked.push(before);
    const end = before === undefined ? items.length : items.findIndex((i) => i.uuid === before);
    return items.slice(Math.max(0, end - limit), end).reverse();
  };
  return { items, asked, page };
}

function run(marker: RemoteMarker, t: ReturnType<typeof thread>, window: number, maxPages: number): Observation {
  const pager = createRemotePager(marker, window, maxPages);
  for (let req = pager.next(); req; req = pager.next()) pager.accept(t.page(req.before, window));
  return pager.observation();
}
const texts = (o: Observation) => (o.status === 'found' ? o.turns.map((x) => x.text) : [o.status]);
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `i${from + i}`);

describe('U7 stored remote markers decode strictly', () => {
  it('U7 a marker is an object whose id is a non-empty string or null', () => {
    expect(parseRemoteMarker({ id: 'x' })).toEqual({ id: 'x' });
    expect(parseRemoteMarker({ id: null })).toEqual({ id: null });
    for (const bad of [null, 'x', [], [{ id: 'x' }], {}, { id: '' }, { id: 5 }, { id: false }]) expect(parseRemoteMarker(bad as never), JSON.stringify(bad)).toBeUndefined();
  });

  it('U7 paging is kept only with both ends as strings', () => {
    expect(parseRemoteMarker({ id: 'a', paging: { newest: 'n', before: 'b' } })).toEqual({ id: 'a', paging: { newest: 'n', before: 'b' } });
    expect(parseRemoteMarker({ id: null, paging: { newest: 'n', before: 'b' } })).toEqual({ id: null, paging: { newest: 'n', before: 'b' } });
    for (const paging of [{ newest: 'n' }, { before: 'b' }, { newest: 1, before: 'b' }, { newest: 'n', before: null }, 'n~b', null]) {
      expect(parseRemoteMarker({ id: 'a', paging } as never)).toEqual({ id: 'a' });
    }
  });

  it('U7 the stored form round-trips and is a copy', () => {
    const m: RemoteMarker = { id: 'a', paging: { newest: 'n', before: 'b' } };
    const json = remoteMarkerJson(m);
    expect(json).toEqual(m);
    expect(parseRemoteMarker(json)).toEqual(m);
    m.paging!.before = 'changed';
    expect(json['paging']).toEqual({ newest: 'n', before: 'b' });
    expect(remoteMarkerJson({ id: null })).toEqual({ id: null });
  });

  it('U7 an item id is its uuid, else its id; empty or non-string ids are none', () => {
    expect(remoteItemId({ uuid: 'u', id: 'i' })).toBe('u');
    expect(remoteItemId({ id: 'i' })).toBe('i');
    expect(remoteItemId({ uuid: null, id: 'i' })).toBe('i');
    expect(remoteItemId({ uuid: '', id: 'i' })).toBeUndefined();
    expect(remoteItemId({ uuid: 5 })).toBeUndefined();
    expect(remoteItemId({ id: '' })).toBeUndefined();
    for (const v of [null, 'u', ['u'], 3]) expect(remoteItemId(v)).toBeUndefined();
  });

  it('U3 U7 the baseline: an empty thread links with a null id; a newest item without an id links nothing', () => {
    expect(remoteBaseline([])).toEqual({ id: null });
    expect(remoteBaseline([user('n'), user('o')])).toEqual({ id: 'n' });
    expect(remoteBaseline([{ type: 'user' }, user('o')])).toBeUndefined();
  });
});

describe('U7 one check of the history', () => {
  it('U7 U2 an empty newest page or a newest item without an id is inconclusive; an unread pager too', () => {
    const p = createRemotePager({ id: 'x' }, 5, 4);
    expect(p.observation()).toEqual({ status: 'inconclusive', detail: 'remote history was not read' });
    // The first request names no `before` at all (a call may test for the key).
    expect(p.next()).toStrictEqual({});
    p.accept([]);
    expect(p.observation()).toEqual({ status: 'inconclusive', detail: 'remote history returned no items' });
    expect(p.next()).toBeUndefined();
    const q = createRemotePager({ id: 'x' }, 5, 4);
    q.accept([{ type: 'user', message: { role: 'user', content: 'no id' } }, user('x')]);
    expect(q.observation()).toEqual({ status: 'inconclusive', detail: 'newest remote history item has no id' });
    expect(q.next()).toBeUndefined();
  });

  it('U7 items newer than the marker become turns, oldest first, with images and times; the marker is the newest id', () => {
    const page = [user('i4', 'four'), assistant('i3'), { ...user('i2', ''), message: { role: 'user', content: [{ type: 'image' }, { type: 'image' }] } }, user('i1', 'one'), user('i0', 'before')];
    const o = observeRemoteHistory({ id: 'i0' }, page, 10);
    expect(o).toStrictEqual({
      status: 'found',
      turns: [{ text: 'one', occurredAt: Date.parse(T) }, { text: '', images: 2, occurredAt: Date.parse(T) }, { text: 'four', occurredAt: Date.parse(T) }],
      nextMarker: { id: 'i4' },
      position: 'i4',
    });
    // The marker is the newest item: nothing new.
    expect(observeRemoteHistory({ id: 'i4' }, page, 10)).toEqual({ status: 'found', turns: [], nextMarker: { id: 'i4' }, position: 'i4' });
    // A turn without a usable time has no occurredAt.
    const untimed = observeRemoteHistory({ id: null }, [user('a', 'x', { timestamp: 'never' })], 10);
    expect(untimed.status === 'found' && untimed.turns).toStrictEqual([{ text: 'x' }]);
  });

  it('U7 only `window` items of a page count (a call that answers more is cut)', () => {
    const page = [user('i5'), user('i4'), user('i3'), user('i2'), user('i1')];
    const o = observeRemoteHistory({ id: 'i1' }, page, 3);
    // i1 (the marker) is past the window: the first page is full, this one-page check resumes later.
    expect(texts(o)).toEqual(['m-i3', 'm-i4', 'm-i5']);
    expect(o).toMatchObject({ nextMarker: { id: 'i1', paging: { newest: 'i5', before: 'i3' } }, position: 'i5~i3' });
  });

  it('U7 a null marker (thread empty at adoption) takes everything to the thread start, with no note', () => {
    const t = thread(ids(1, 7));
    const o = run({ id: null }, t, 3, 4);
    expect(texts(o)).toEqual(ids(1, 7).map((i) => `m-${i}`));
    expect(o).toEqual(expect.objectContaining({ nextMarker: { id: 'i7' }, position: 'i7' }));
    expect(o.status === 'found' && 'note' in o).toBe(false);
    expect(t.asked).toEqual([undefined, 'i5', 'i2']);
  });

  it('U7 a page exactly the window size is not the thread start: paging goes on', () => {
    const t = thread(ids(1, 6));
    const o = run({ id: null }, t, 3, 4);
    expect(texts(o)).toHaveLength(6);
    expect(t.asked).toEqual([undefined, 'i4', 'i1']);
  });

  it('U7 a marker no longer in the history reads back to the thread start, with a note', () => {
    const t = thread(ids(1, 4));
    const o = run({ id: 'gone' }, t, 3, 4);
    expect(texts(o)).toEqual(ids(1, 4).map((i) => `m-${i}`));
    expect(o).toMatchObject({ nextMarker: { id: 'i4' }, position: 'i4', note: 'the marker item is no longer in the history; everything after the thread start was read' });
  });

  it('U7 a full page whose last item has no id cannot page back: inconclusive', () => {
    const p = createRemotePager({ id: 'old' }, 2, 4);
    p.accept([user('i9'), { type: 'user', message: { role: 'user', content: 'x' } }]);
    expect(p.next()).toBeUndefined();
    expect(p.observation()).toEqual({ status: 'inconclusive', detail: 'remote history item without id; cannot page back' });
  });

  it('U7 a history call that ignores `before` stops the paging: the newest page only, a note, nothing counted twice', () => {
    const items = ids(1, 8).map((i) => user(i));
    const pager = createRemotePager({ id: 'i1' }, 3, 4);
    let calls = 0;
    for (let req = pager.next(); req; req = pager.next()) {
      calls++;
      pager.accept(items.slice(-3).reverse());
    }
    expect(calls).toBe(2);
    const o = pager.observation();
    expect(texts(o)).toEqual(['m-i6', 'm-i7', 'm-i8']);
    expect(o).toMatchObject({ nextMarker: { id: 'i8' }, position: 'i8', note: 'the history call ignores `before`: only its newest page was read; older items may have been missed' });
    // One item seen again is enough to stop.
    const q = createRemotePager({ id: 'i1' }, 3, 4);
    q.accept([user('i8'), user('i7'), user('i6')]);
    q.accept([user('i5'), user('i4'), user('i6')]);
    expect(texts(q.observation())).toEqual(['m-i6', 'm-i7', 'm-i8']);
    // Id-less items on both pages are not one item "seen again".
    const r = createRemotePager({ id: 'i1' }, 3, 4);
    r.accept([user('i8'), { type: 'assistant' }, user('i6')]);
    expect(r.next()).toStrictEqual({ before: 'i6' });
    r.accept([user('i5'), { type: 'assistant' }, user('i1')]);
    const ro = r.observation();
    expect(texts(ro)).toEqual(['m-i5', 'm-i6', 'm-i8']);
    expect(ro.status === 'found' && 'note' in ro).toBe(false);
  });

  it('U7 at most maxPages pages per check (default 4); a larger burst resumes from where it stopped', () => {
    expect(DEFAULT_REMOTE_PAGES).toBe(4);
    const t = thread(['m0', ...ids(1, 10)]);
    const first = run({ id: 'm0' }, t, 2, 3);
    expect(t.asked).toEqual([undefined, 'i9', 'i7']);
    expect(texts(first)).toEqual(ids(5, 10).map((i) => `m-${i}`));
    expect(first).toEqual({
      status: 'found',
      turns: expect.any(Array),
      nextMarker: { id: 'm0', paging: { newest: 'i10', before: 'i5' } },
      position: 'i10~i5',
      note: 'paging back: 6 new item(s) read, continuing next check',
    });
    // Next check: nothing new on top, then the gap from i5 down to the marker.
    t.asked.length = 0;
    const second = run(parseRemoteMarker(first.status === 'found' ? first.nextMarker : null)!, t, 2, 4);
    expect(t.asked).toEqual([undefined, 'i5', 'i3', 'i1']);
    expect(texts(second)).toEqual(ids(1, 4).map((i) => `m-${i}`));
    expect(second).toEqual({ status: 'found', turns: expect.any(Array), nextMarker: { id: 'i10' }, position: 'i10' });
  });

  it('U7 new items on top while a gap is paged: the top is read down to what was read before, then the gap', () => {
    const t = thread(['m0', ...ids(1, 12)]);
    // Items i1..i10 arrived; the previous check read i10..i5 (paging {newest: i10, before: i5}); now i11, i12 are new.
    const o = run({ id: 'm0', paging: { newest: 'i10', before: 'i5' } }, t, 2, 5);
    expect(t.asked).toEqual([undefined, 'i11', 'i5', 'i3', 'i1']);
    expect(texts(o)).toEqual(['m-i1', 'm-i2', 'm-i3', 'm-i4', 'm-i11', 'm-i12']);
    expect(o).toMatchObject({ nextMarker: { id: 'i12' }, position: 'i12' });
    expect(o.status === 'found' && 'note' in o).toBe(false);
  });

  it('U7 a gap not finished in this check keeps its lower end; an empty gap read keeps the old one', () => {
    const t = thread(['m0', ...ids(1, 12)]);
    const o = run({ id: 'm0', paging: { newest: 'i10', before: 'i9' } }, t, 2, 3);
    // Top: i12, i11 then i10 found (2 pages: [i12,i11] and [i10,...]); back: 1 page [i8,i7].
    expect(t.asked).toEqual([undefined, 'i11', 'i9']);
    expect(o).toMatchObject({ nextMarker: { id: 'm0', paging: { newest: 'i12', before: 'i7' } }, position: 'i12~i7', note: 'paging back: 4 new item(s) read, continuing next check' });
    expect(texts(o)).toEqual(['m-i7', 'm-i8', 'm-i11', 'm-i12']);
    // The top alone uses up the pages: the gap stays where it was.
    const t2 = thread(['m0', ...ids(1, 12)]);
    const p = run({ id: 'm0', paging: { newest: 'i10', before: 'i9' } }, t2, 2, 2);
    expect(t2.asked).toEqual([undefined, 'i11']);
    expect(p).toMatchObject({ nextMarker: { id: 'm0', paging: { newest: 'i12', before: 'i9' } }, position: 'i12~i9' });
    expect(texts(p)).toEqual(['m-i11', 'm-i12']);
  });

  it('U7 more new items on top than one check reads while a gap is open: the older gap is given up and the note says so', () => {
    const t = thread(['m0', ...ids(1, 20)]);
    const o = run({ id: 'm0', paging: { newest: 'i10', before: 'i5' } }, t, 2, 2);
    expect(t.asked).toEqual([undefined, 'i19']);
    expect(o).toMatchObject({
      nextMarker: { id: 'i10', paging: { newest: 'i20', before: 'i17' } },
      position: 'i20~i17',
      note: 'paging back: 4 new item(s) read, continuing next check; more than 4 new items per check while paging: items older than i5 were missed',
    });
  });

  it('U7 the default window is the protocol limit', () => {
    const items = Array.from({ length: LIMITS.remoteHistoryWindow + 5 }, (_, i) => user(`x${i}`)).reverse();
    const o = observeRemoteHistory({ id: 'none' }, items);
    expect(o.status === 'found' && o.turns).toHaveLength(LIMITS.remoteHistoryWindow);
    const pager = createRemotePager({ id: 'none' });
    pager.accept(items);
    expect(pager.next()).toEqual({ before: `x${5}` });
  });
});
