import { DAY } from '../script.js';
import { advance, CHILD, human, PARENT, PEER, pending, prune, since, spawn, type VectorSpec, version } from './dsl.js';

/** R30-R33: changesSince and the history gap. */
export const RECONCILIATION_VECTORS: VectorSpec[] = [
  {
    name: 'r30-r32-changes-since',
    rules: ['R30', 'R31', 'R32', 'R34'],
    description: 'Ascending events after since, at most limit, clamped to 200, with truncated and earliestAvailableSequence; reads move no cursor.',
    script: [
      since(CHILD, 0),
      spawn(),
      ...Array.from({ length: 205 }, (_, i) => (i % 50 === 0 ? [human(), human(PEER)] : [human()])).flat(),
      pending(PARENT),
      since(CHILD, 0, 1000),
      since(CHILD, 205),
      since(CHILD, 3, 1),
      since(CHILD, 3, 2),
      since(CHILD, 5000),
      version(CHILD),
      pending(PARENT),
    ],
  },
  {
    name: 'r33-history-gap',
    rules: ['R33', 'R32', 'R7'],
    description: 'historyGap comes from the pruned watermark of that session, never from sparse sequences.',
    options: { retentionMs: DAY },
    script: [
      human(),
      human(PEER),
      human(PEER),
      human(PEER),
      human(),
      since(CHILD, 1),
      advance(DAY / 2),
      human(),
      advance(DAY / 2 + 1),
      prune,
      since(CHILD, 0),
      since(CHILD, 1),
      since(CHILD, 5),
      since(PEER, 5),
      since(PEER, 4),
      since(PEER, 0),
    ],
  },
];
