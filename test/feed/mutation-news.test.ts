/**
 * R74 on the feed's side alone (src/feed/news.ts): what news is remembered and handed out, what a
 * later read may still hand out, and what it forgets, by exact values.
 */
import { describe, expect, it } from 'vitest';
import type { PairChange } from '../../src/feed/index.js';
import { NewsAhead } from '../../src/feed/news.js';

const A = 'agent:main:a';
const B = 'agent:main:b';

function change(watcher: string, target: string, lastSeen: number, extra: Partial<PairChange> = {}): PairChange {
  return { watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: lastSeen, wake: 'immediate', pending: true, ...extra };
}

/** Positions and marks are numbers: a position covers every mark up to it. */
const upTo = () => {
  const asked: string[] = [];
  const covers = (position: string, mark: string) => (asked.push(mark), Number(mark) <= Number(position));
  return { asked, covers };
};

describe('R74 NewsAhead', () => {
  it('R74 takes and hands back exactly the changes of watchers heard here, and remembers only those', () => {
    const news = new NewsAhead(upTo().covers);
    const heard = news.take({ mark: '5', changes: [change(A, 't1', 1), change(B, 't1', 1), change(A, 't2', 2)] }, (w) => w === A);
    expect(heard).toEqual([change(A, 't1', 1), change(A, 't2', 2)]);
    expect(news.size).toBe(2);
  });

  it('R74 pairs are told apart by watcher, target and agent', () => {
    const news = new NewsAhead(upTo().covers);
    news.take({ mark: '5', changes: [change(A, 't1', 1), change(A, 't2', 1), change(B, 't1', 1), change(A, 't1', 1, { targetAgentId: 'ops' })] }, () => true);
    expect(news.size).toBe(4);
    // A read that does not cover mark 5 answers older states of all four, and of a fifth pair: only the fifth goes out.
    const out = news.settle('4', [change(A, 't1', 0), change(A, 't2', 0), change(B, 't1', 0), change(A, 't1', 0, { targetAgentId: 'ops' }), change(B, 't9', 3)]);
    expect(out).toEqual([change(B, 't9', 3)]);
  });

  it('R74 a read that covers the news hands out a pair only where its state differs (L, pending or wake), then forgets the news', () => {
    const news = new NewsAhead(upTo().covers);
    news.take({ mark: '5', changes: [change(A, 't1', 1), change(A, 't2', 1), change(A, 't3', 1), change(A, 't4', 1)] }, () => true);
    const out = news.settle('6', [change(A, 't1', 1), change(A, 't2', 2), change(A, 't3', 1, { pending: false }), change(A, 't4', 1, { wake: 'next-turn' })]);
    expect(out).toEqual([change(A, 't2', 2), change(A, 't3', 1, { pending: false }), change(A, 't4', 1, { wake: 'next-turn' })]);
    expect(news.size).toBe(0);
  });

  it('R74 asks whether a position covers a mark once per mark per read, and keeps what it does not cover', () => {
    const { asked, covers } = upTo();
    const news = new NewsAhead(covers);
    news.take({ mark: '5', changes: [change(A, 't1', 1), change(A, 't2', 1)] }, () => true);
    news.take({ mark: '7', changes: [change(A, 't3', 1)] }, () => true);
    news.settle('6', [change(A, 't1', 1), change(A, 't2', 1), change(A, 't3', 0)]);
    expect(asked.sort()).toEqual(['5', '7']);
    expect(news.size).toBe(1);
  });

  it('R74 a check that throws counts as not covered: the news stands and waits for the next read', () => {
    const news = new NewsAhead(() => {
      throw new Error('no such snapshot');
    });
    news.take({ mark: '5', changes: [change(A, 't1', 2)] }, () => true);
    expect(news.settle('9', [change(A, 't1', 1)])).toEqual([]);
    expect(news.size).toBe(1);
  });

  it('R74 clear forgets everything; with nothing remembered a read hands out all it found', () => {
    const news = new NewsAhead(upTo().covers);
    news.take({ mark: '5', changes: [change(A, 't1', 1)] }, () => true);
    news.clear();
    expect(news.size).toBe(0);
    const changes = [change(A, 't1', 1), change(B, 't1', 1)];
    const out = news.settle('1', changes);
    expect(out).toEqual(changes);
    expect(out).not.toBe(changes);
  });
});
