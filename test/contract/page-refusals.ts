import { expect } from 'vitest';

/** A store's two keyed page reads (T15), as every store offers them, sync or async. */
export interface PagedStore {
  sessionsPage(request: { after?: { sessionKey: string; agentId: string }; limit: number }): unknown;
  pendingWatchersPage(request: { after?: string; limit: number }): unknown;
}

async function refusal(read: () => unknown): Promise<unknown> {
  try {
    await read();
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * T15: the store refuses a bad page request with core's RangeError before it reads (so before a
 * storage failure could turn it into an empty page), and a limit of one is one row (the store
 * holds two sessions or more).
 */
export async function expectPageRefusals(store: PagedStore): Promise<void> {
  for (const [read, message] of [
    [() => store.sessionsPage({ limit: 0 }), /^sessionsPage: limit must be a positive integer, got 0$/],
    [() => store.sessionsPage({ limit: 1, after: { sessionKey: 1, agentId: 'main' } as never }), /^sessionsPage: after must name a session/],
    [() => store.pendingWatchersPage({ limit: 1.5 }), /^pendingWatchersPage: limit must be a positive integer, got 1.5$/],
    [() => store.pendingWatchersPage({ limit: 1, after: 7 as never }), /^pendingWatchersPage: after must be a watcher key$/],
  ] as const) {
    const error = await refusal(read);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(message);
  }
  expect(await store.sessionsPage({ limit: 1 })).toHaveLength(1);
}
