import { describe, expect, it } from 'vitest';
import { checkPendingWatchersPageRequest, checkSessionsPageRequest } from '../../src/core/index.js';

// T15: a page read's request is checked once, in core, for every store (the memory and SQLite
// stores are asked through test/contract/page-refusals.ts, the PostgreSQL store by its own
// mutation-store test).
const refusal = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(RangeError);
    return (error as Error).message;
  }
};

describe('T15 page requests', () => {
  it('a limit is a positive safe integer; anything else names the read, the field and the value', () => {
    for (const limit of [1, 2, 200, Number.MAX_SAFE_INTEGER]) {
      expect(refusal(() => checkSessionsPageRequest({ limit }))).toBeUndefined();
      expect(refusal(() => checkPendingWatchersPageRequest({ limit }))).toBeUndefined();
    }
    for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1, '5', undefined, null]) {
      expect(refusal(() => checkSessionsPageRequest({ limit }))).toBe(`sessionsPage: limit must be a positive integer, got ${String(limit)}`);
      expect(refusal(() => checkPendingWatchersPageRequest({ limit }))).toBe(`pendingWatchersPage: limit must be a positive integer, got ${String(limit)}`);
    }
  });

  it('a sessions page starts after a session named by both its keys, or from the first', () => {
    expect(refusal(() => checkSessionsPageRequest({ limit: 1, after: { sessionKey: 'agent:main:a', agentId: 'main' } }))).toBeUndefined();
    expect(refusal(() => checkSessionsPageRequest({ limit: 1, after: undefined }))).toBeUndefined();
    for (const after of [null, 'agent:main:a', 5, { sessionKey: 'agent:main:a' }, { agentId: 'main' }, { sessionKey: 1, agentId: 'main' }, { sessionKey: 'agent:main:a', agentId: null }]) {
      expect(refusal(() => checkSessionsPageRequest({ limit: 1, after }))).toBe('sessionsPage: after must name a session (sessionKey, agentId)');
    }
    // The limit is checked first: one error, the first field wrong.
    expect(refusal(() => checkSessionsPageRequest({ limit: 0, after: 5 }))).toMatch(/limit/);
  });

  it('a page of pending watchers starts after a watcher key, or from the first', () => {
    expect(refusal(() => checkPendingWatchersPageRequest({ limit: 1, after: 'agent:main:a' }))).toBeUndefined();
    expect(refusal(() => checkPendingWatchersPageRequest({ limit: 1, after: '' }))).toBeUndefined();
    for (const after of [null, 5, { sessionKey: 'agent:main:a' }]) {
      expect(refusal(() => checkPendingWatchersPageRequest({ limit: 1, after }))).toBe('pendingWatchersPage: after must be a watcher key');
    }
    expect(refusal(() => checkPendingWatchersPageRequest({ limit: -1, after: 5 }))).toMatch(/limit/);
  });
});
