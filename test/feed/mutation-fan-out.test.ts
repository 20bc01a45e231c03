import { describe, expect, it } from 'vitest';
import type { PairChange, PendingPair } from '../../spec/index.js';
import { routePayload } from '../../src/core/index.js';
import { Audience } from '../../src/feed/fan-out.js';
import type { NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

/** Who hears what a read found (R60, R61, R69, R73), on the fan-out side alone: no store, no timers. */
const W = 'agent:main:w';
const V = 'agent:main:v';
const pair = (watcher: string, target: string, l = 0): PendingPair => ({ watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: l, wake: 'immediate' });
const change = (p: PendingPair, pending = true): PairChange => ({ ...p, pending });
const heard = () => {
  const got: NoticeSignal[] = [];
  return { got, listener: (s: NoticeSignal) => void got.push(s) };
};

describe('fan-out: which server pushes concern this process (R73)', () => {
  it('a wake without a payload, with *, or garbled concerns everyone; a routed one only its watchers\' subscribers', () => {
    const a = new Audience(memoryLogger());
    expect(a.hears(routePayload([W]))).toBe(false); // nobody subscribed
    const off = a.add(heard().listener, W);
    for (const p of [undefined, '*', 'w:zz', 'garbled']) expect(a.hears(p)).toBe(true);
    expect(a.hears(routePayload([W]))).toBe(true);
    expect(a.hears(routePayload([V]))).toBe(false);
    expect(a.hears('w:')).toBe(false);
    expect(off()).toBe(true);
    expect(a.hears(routePayload([W]))).toBe(false); // the hash left with its last subscriber
    expect(off()).toBe(false); // a second removal changes nothing
  });

  it('a watcher keeps its hash while one of its subscribers stays; a subscriber of every watcher hears every routed wake', () => {
    const a = new Audience(memoryLogger());
    const one = a.add(heard().listener, W);
    const two = a.add(heard().listener, W);
    one();
    expect(a.hears(routePayload([W]))).toBe(true);
    two();
    expect(a.hears(routePayload([W]))).toBe(false);
    const all = a.add(heard().listener, undefined);
    expect(a.hears(routePayload([V]))).toBe(true);
    expect(a.hears('w:')).toBe(true);
    all();
    expect(a.hears(routePayload([V]))).toBe(false);
    expect(a.size).toBe(0);
  });
});

describe('fan-out: what the next read asks for (R61, R68)', () => {
  it('newcomers once: their distinct watchers, or all when one hears every watcher; nothing while they are being served; again after unserve', () => {
    const a = new Audience(memoryLogger());
    expect(a.nextRead()).toEqual({ served: [], watchers: [] });
    a.add(heard().listener, W);
    a.add(heard().listener, W);
    a.add(heard().listener, V);
    const first = a.nextRead();
    expect(first.served).toHaveLength(3);
    expect(first.snapshot).toEqual([W, V]);
    expect(first.watchers).toEqual([W, V]);
    expect(a.nextRead()).toEqual({ served: [], watchers: [W, V] }); // already being served
    a.unserve(first.served);
    expect(a.nextRead().served).toHaveLength(3);
    a.add(heard().listener, undefined);
    const withAll = a.nextRead();
    expect(withAll.snapshot).toBe('all');
    expect(withAll.watchers).toBeUndefined(); // someone hears every watcher: every change is wanted
  });

  it('up to 256 watchers are named; past that every change is asked for', () => {
    const a = new Audience(memoryLogger());
    const offs = Array.from({ length: 257 }, (_, i) => a.add(heard().listener, `agent:main:m${i}`));
    expect(a.nextRead().watchers).toBeUndefined();
    offs[256]!();
    expect(a.nextRead().watchers).toHaveLength(256);
  });
});

describe('fan-out: who is told what (R60, R61, R69)', () => {
  it('a snapshot: each served subscriber its watchers\' pending pairs in R26 order, one signal per watcher in key order; empty watchers and removed subscribers get nothing', () => {
    const a = new Audience(memoryLogger());
    const w = heard();
    const all = heard();
    const gone = heard();
    a.add(w.listener, W);
    a.add(all.listener, undefined);
    const off = a.add(gone.listener, V);
    const { served } = a.nextRead();
    off();
    a.publishSnapshot([pair(W, 'agent:main:t2'), pair(W, 'agent:main:t1'), pair(V, 'agent:main:t1')], served);
    expect(w.got).toEqual([{ watcherSessionKey: W, changed: [pair(W, 'agent:main:t1'), pair(W, 'agent:main:t2')] }]);
    expect(all.got.map((s) => s.watcherSessionKey)).toEqual([V, W]);
    expect(gone.got).toEqual([]);
    // Served: no second snapshot; changes now reach them.
    expect(a.nextRead().served).toEqual([]);
  });

  it('changes reach established subscribers of the watcher and of every watcher, each its own copy; a newcomer waits for its snapshot; a throwing listener is logged and the rest are told', () => {
    const logger = memoryLogger();
    const a = new Audience(logger);
    const w = heard();
    const other = heard();
    a.add(() => {
      throw new Error('boom');
    }, W);
    a.add(w.listener, W);
    a.add(other.listener, V);
    a.publishSnapshot([], a.nextRead().served);
    const fresh = heard();
    a.add(fresh.listener, W);
    a.publishChanges([change(pair(W, 'agent:main:t1', 3)), change(pair(W, 'agent:main:t2'), false)]);
    expect(w.got).toEqual([{ watcherSessionKey: W, changed: [pair(W, 'agent:main:t1', 3)] }]);
    expect(other.got).toEqual([]);
    expect(fresh.got).toEqual([]);
    expect(logger.entries.map((e) => [e.level, e.message, e.details?.['watcherSessionKey'], e.details?.['error']])).toEqual([['error', 'notice feed: a listener threw', W, 'boom']]);
    w.got[0]!.changed[0]!.lastSeenSequence = 99;
    a.publishChanges([change(pair(W, 'agent:main:t3'))]);
    expect(w.got[1]!.changed).toEqual([pair(W, 'agent:main:t3')]);
    a.publishChanges([]);
    expect(w.got).toHaveLength(2);
  });

  it('clear drops every subscriber and hash', () => {
    const a = new Audience(memoryLogger());
    const w = heard();
    a.add(w.listener, W);
    a.clear();
    expect(a.size).toBe(0);
    expect(a.hears(routePayload([W]))).toBe(false);
    expect(a.nextRead()).toEqual({ served: [], watchers: [] });
  });
});
