/**
 * The deliberately broken implementations: each breaks one rule of spec/PROTOCOL.md. The suite
 * must catch every one (conformance/broken.test.ts); they are also handy to see what a failure
 * report looks like: `session-state-kit conformance --broken acks-to-head`.
 */
import type { StoreFactory } from '../../spec/index.js';
import * as ackIgnoresLastSeen from './ack-ignores-last-seen.js';
import * as ackNoRefresh from './ack-no-refresh.js';
import * as acksToHead from './acks-to-head.js';
import * as batchNotAtomic from './batch-not-atomic.js';
import * as changesSinceAcks from './changes-since-acks.js';
import * as clockUnchecked from './clock-unchecked.js';
import * as dedupeRenotifies from './dedupe-renotifies.js';
import * as deleteIgnoresAgent from './delete-ignores-agent.js';
import * as forgetsOnRestart from './forgets-on-restart.js';
import * as gapByArithmetic from './gap-by-arithmetic.js';
import * as gateCountsSelf from './gate-counts-self.js';
import * as headRegresses from './head-regresses.js';
import * as historyNotifies from './history-notifies.js';
import * as ignoresAgentInHeads from './ignores-agent-in-heads.js';
import * as limitNotClamped from './limit-not-clamped.js';
import * as logOnlyNotifies from './log-only-notifies.js';
import * as noCoalescing from './no-coalescing.js';
import * as noFollowUp from './no-follow-up.js';
import * as noopRestart from './noop-restart.js';
import * as notifiesActor from './notifies-actor.js';
import * as notifiesBareKeys from './notifies-bare-keys.js';
import * as pruneWaitsForClock from './prune-waits-for-clock.js';
import * as pruneWithoutWatermark from './prune-without-watermark.js';
import * as restartSweeps from './restart-sweeps.js';
import * as rewatchClobbers from './rewatch-clobbers.js';
import * as rewatchNoRefresh from './rewatch-no-refresh.js';
import * as spawnNotSeeded from './spawn-not-seeded.js';
import * as storesMessageText from './stores-message-text.js';
import * as sweepRefreshes from './sweep-refreshes.js';
import * as terminalNotifiesParent from './terminal-notifies-parent.js';
import * as unwatchKeepsNotice from './unwatch-keeps-notice.js';
import * as vagueValidationField from './vague-validation-field.js';
import * as wrongNoticeText from './wrong-notice-text.js';
import * as deleteDropsOtherAgents from './delete-drops-other-agents.js';
import * as fractionalClockDrops from './fractional-clock-drops.js';
import * as linkTemplateLax from './link-template-lax.js';
import * as prunesOnDedupeHit from './prunes-on-dedupe-hit.js';
import * as spawnSeedsSelf from './spawn-seeds-self.js';
import * as watcherCaseFolded from './watcher-case-folded.js';
import * as watcherQueueCapped from './watcher-queue-capped.js';
import * as contextKeyLengthInUnits from './context-key-length-in-units.js';
import * as contextKeyUnicodeFold from './context-key-unicode-fold.js';
import * as terminalNotifiesItsActor from './terminal-notifies-its-actor.js';
import * as terminalSkipsPassedWatchers from './terminal-skips-passed-watchers.js';
import { createVariantStore } from './variant.js';

export interface BrokenImplementation {
  name: string;
  /** The rule it breaks. */
  rule: string;
  what: string;
  create: StoreFactory;
}

const modules: Record<string, { breaks: { rule: string; what: string }; create: StoreFactory }> = {
  'no-coalescing': noCoalescing,
  'notifies-actor': notifiesActor,
  'acks-to-head': acksToHead,
  'no-follow-up': noFollowUp,
  'gap-by-arithmetic': gapByArithmetic,
  'head-regresses': headRegresses,
  'changes-since-acks': changesSinceAcks,
  'prune-without-watermark': pruneWithoutWatermark,
  'ignores-agent-in-heads': ignoresAgentInHeads,
  'forgets-on-restart': forgetsOnRestart,
  'notifies-bare-keys': notifiesBareKeys,
  'terminal-notifies-parent': terminalNotifiesParent,
  'rewatch-clobbers': rewatchClobbers,
  'limit-not-clamped': limitNotClamped,
  'wrong-notice-text': wrongNoticeText,
  'log-only-notifies': logOnlyNotifies,
  'history-notifies': historyNotifies,
  'spawn-not-seeded': spawnNotSeeded,
  'dedupe-renotifies': dedupeRenotifies,
  'stores-message-text': storesMessageText,
  'vague-validation-field': vagueValidationField,
  'rewatch-no-refresh': rewatchNoRefresh,
  'ack-no-refresh': ackNoRefresh,
  'sweep-refreshes': sweepRefreshes,
  'noop-restart': noopRestart,
  'delete-ignores-agent': deleteIgnoresAgent,
  'prune-waits-for-clock': pruneWaitsForClock,
  'gate-counts-self': gateCountsSelf,
  'clock-unchecked': clockUnchecked,
  'restart-sweeps': restartSweeps,
  'unwatch-keeps-notice': unwatchKeepsNotice,
  'ack-ignores-last-seen': ackIgnoresLastSeen,
  'batch-not-atomic': batchNotAtomic,
  'watcher-queue-capped': watcherQueueCapped,
  'watcher-case-folded': watcherCaseFolded,
  'fractional-clock-drops': fractionalClockDrops,
  'delete-drops-other-agents': deleteDropsOtherAgents,
  'spawn-seeds-self': spawnSeedsSelf,
  'prunes-on-dedupe-hit': prunesOnDedupeHit,
  'link-template-lax': linkTemplateLax,
};

export const BROKEN: readonly BrokenImplementation[] = Object.entries(modules).map(([name, m]) => ({ name, rule: m.breaks.rule, what: m.breaks.what, create: m.create }));

/**
 * Broken where two readings of the text differed (spec round 3): each is caught by the fixed
 * vector named here, written for that reading, which the random generators need not reach.
 */
export const BROKEN_FOR_VECTORS: readonly (BrokenImplementation & { vector: string })[] = [
  { name: 'context-key-unicode-fold', ...contextKeyUnicodeFold.breaks, create: contextKeyUnicodeFold.create, vector: 'r24-ascii-case-only' },
  { name: 'context-key-length-in-units', ...contextKeyLengthInUnits.breaks, create: contextKeyLengthInUnits.create, vector: 'r27b-context-key-length-in-code-points' },
  { name: 'terminal-skips-passed-watchers', ...terminalSkipsPassedWatchers.breaks, create: terminalSkipsPassedWatchers.create, vector: 'r16-passed-and-self' },
  { name: 'terminal-notifies-its-actor', ...terminalNotifiesItsActor.breaks, create: terminalNotifiesItsActor.create, vector: 'r16-passed-and-self' },
];

export function brokenByName(name: string): BrokenImplementation | undefined {
  return BROKEN.find((b) => b.name === name) ?? BROKEN_FOR_VECTORS.find((b) => b.name === name);
}

/** The unmodified variant: the control that must pass everything. */
export const CONTROL: StoreFactory = createVariantStore;
