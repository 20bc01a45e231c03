/**
 * T15: what a keyed page read accepts, checked once for every store. A page is at most `limit`
 * rows strictly after `after`; anything else is the caller's mistake, refused with a RangeError
 * naming the read and the field before any store reads.
 */
function checkLimit(read: string, limit: unknown): void {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`${read}: limit must be a positive integer, got ${String(limit)}`);
}

/** T4, T15: `sessionsPage({ after?, limit })`; `after` is the previous page's last session. */
export function checkSessionsPageRequest(request: { readonly after?: unknown; readonly limit: unknown }): void {
  checkLimit('sessionsPage', request.limit);
  const after = request.after as { sessionKey?: unknown; agentId?: unknown } | null | undefined;
  if (after === undefined) return;
  if (typeof after !== 'object' || after === null || typeof after.sessionKey !== 'string' || typeof after.agentId !== 'string') {
    throw new RangeError('sessionsPage: after must name a session (sessionKey, agentId)');
  }
}

/** R68, T15: `pendingWatchersPage({ after?, limit })`; `after` is the previous page's last watcher key. */
export function checkPendingWatchersPageRequest(request: { readonly after?: unknown; readonly limit: unknown }): void {
  checkLimit('pendingWatchersPage', request.limit);
  if (request.after !== undefined && typeof request.after !== 'string') throw new RangeError('pendingWatchersPage: after must be a watcher key');
}
