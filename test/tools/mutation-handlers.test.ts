/**
 * T1: every key a tool takes is checked as R1 wants (well-formed UTF-16 too, which the schema's
 * pattern cannot say) before the store sees it, in each tool and in watchAfterSend's refusal
 * path, which calls no store at all and would otherwise echo the key into the model's text.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import { sessionNotices, sessionStatus, sessionUnwatch, sessionWatch, watchAfterSend, type ToolStore } from '../../src/tools/index.js';
import { spied } from './spied-store.js';

const LEAD = 'agent:main:lead';
const WORKER = 'agent:main:worker';
const LONE = 'agent:main:\ud800';


describe('T1 a key that is not well-formed UTF-16 is refused by the tool, naming its field, before any store call', () => {
  const cases: [string, (store: ToolStore) => Promise<unknown>, string][] = [
    ['session_status', (store) => sessionStatus({ store }, { sessionKey: LONE }), 'sessionKey'],
    ['session_watch watcher', (store) => sessionWatch({ store }, { watcherSessionKey: LONE, targetSessionKey: WORKER }), 'watcherSessionKey'],
    ['session_unwatch watcher', (store) => sessionUnwatch({ store }, { watcherSessionKey: LONE, targetSessionKey: WORKER }), 'watcherSessionKey'],
    ['session_unwatch target', (store) => sessionUnwatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: LONE }), 'targetSessionKey'],
    ['session_notices', (store) => sessionNotices({ store }, { watcherSessionKey: LONE }), 'watcherSessionKey'],
    ['watchAfterSend, not dispatched, watcher', (store) => watchAfterSend({ store }, { watch: true, dispatched: false, watcherSessionKey: LONE, targetSessionKey: WORKER }), 'watcherSessionKey'],
    ['watchAfterSend, not dispatched, target', (store) => watchAfterSend({ store }, { watch: true, dispatched: false, watcherSessionKey: LEAD, targetSessionKey: LONE }), 'targetSessionKey'],
  ];
  it.each(cases)('T1 %s', async (_name, call, field) => {
    const { store, calls } = spied(createMemoryStore({ now: () => 0 }));
    await expect(call(store)).rejects.toMatchObject({ name: 'ValidationError', field });
    expect(calls).toEqual([]);
  });
});
