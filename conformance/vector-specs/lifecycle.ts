import { CHILD, COORD, del, human, PARENT, PEER, pending, rec, reset, restart, since, spawn, type VectorSpec, version, watch } from './dsl.js';

/** R50-R51: reset and delete. */
export const LIFECYCLE_VECTORS: VectorSpec[] = [
  {
    name: 'r50-reset',
    rules: ['R50'],
    description: "resetSession removes the watcher's cursors and queued notices; its own log, head and watchers stay.",
    script: [spawn(), watch(COORD, PARENT), human(), human(PARENT), reset(PARENT), pending(PARENT), human(), pending(PARENT), version(PARENT), pending(COORD), restart, pending(PARENT)],
  },
  {
    name: 'r51-delete',
    rules: ['R51', 'R8'],
    description: "deleteSession removes the identity's events, head, cursors both ways and their notices, frees dedupe keys, and leaves other agents' sessions alone.",
    script: [
      spawn(),
      watch(CHILD, PEER),
      human(),
      human(PEER),
      rec({ sessionKey: 'global', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      rec({ sessionKey: 'global', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' }),
      del(CHILD),
      version(CHILD),
      since(CHILD, 0),
      pending(PARENT),
      pending(CHILD),
      human(),
      human(PEER),
      restart,
      pending(PARENT),
      pending(CHILD),
      spawn(),
      del('global', 'ops'),
      version('global', 'ops'),
      version('global', 'main'),
    ],
  },
];
