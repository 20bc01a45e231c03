/**
 * The properties of the suite. `model` runs every script against the implementation and the
 * reference in lockstep. Every other property is tied to rule numbers of spec/PROTOCOL.md and
 * judges the implementation alone, from what it returns, against what the property itself knows it
 * did (records, clock, options): none of them consults the reference, so each one catches a
 * broken rule on its own.
 *
 * Where a rule's property lives (files named after PROTOCOL.md's sections and their rule ranges):
 *   log-r1-r9b.ts          R1, R3/R4, R6, R8, R9, R9b   keys, input and events
 *   notify-r10-r18.ts      R12-R17                      which events notify whom
 *   notices-r20-r29.ts     R21-R29                      watchers, notices, acknowledgement
 *   watches-r21b-r27b-r52.ts  R21b, R27b, R52           ambient watches, ackNotices, unwatch
 *   reconcile-r30-r35.ts   R30-R34                      changesSince, history gap, read-only
 *   retention-r40-r44.ts   R5/R40-R44                   pruning, heads, cursor expiry
 *   batch-r9e.ts           R9e                          recordMany (optional) equals record in order
 *   handles-r20-r27.ts     R20, R26, R27                multi-handle mode: every handle agrees
 *   model.ts               R1-R51                       lockstep with the reference store
 *   options-r23b.ts        R23b                         store options refused when the store is built
 *   fixed-vectors.ts       R1-R51                       the recorded vectors
 * Shared helpers: common.ts (property shape), pair.ts (one cursor's model), log-script.ts (log model scripts).
 */
import type { ConformanceProperty } from './common.js';
import { recordMany } from './batch-r9e.js';
import { vectors } from './fixed-vectors.js';
import { handlesAgree } from './handles-r20-r27.js';
import { clock, dedupe, identityAgent, noMessageText, onlyIfWatched, validation } from './log-r1-r9b.js';
import { model } from './model.js';
import { linkTemplate } from './options-r23b.js';
import { ackOnDrain, explicitWatch, noticeText, oneNoticePerPair, restart } from './notices-r20-r29.js';
import { bareKeys, frozenWatermark, logOnly, selfSuppression, spawnSeeding, terminalRuns } from './notify-r10-r18.js';
import { changesSincePage, historyGap, readOnly } from './reconcile-r30-r35.js';
import { cursorExpiry, headsMonotonic, pruneSchedule, realLimits } from './retention-r40-r44.js';
import { ackNotices, ambientWatch, unwatch } from './watches-r21b-r27b-r52.js';

export type { ArbitraryOptions, ConformanceProperty, PropertyContext } from './common.js';

/** Every property of the conformance suite, in the order runConformance runs them. */
export const PROPERTIES: readonly ConformanceProperty[] = [
  model,
  oneNoticePerPair,
  noticeText,
  frozenWatermark,
  ackOnDrain,
  selfSuppression,
  bareKeys,
  explicitWatch,
  spawnSeeding,
  logOnly,
  terminalRuns,
  readOnly,
  changesSincePage,
  historyGap,
  headsMonotonic,
  realLimits,
  pruneSchedule,
  restart,
  ambientWatch,
  ackNotices,
  unwatch,
  cursorExpiry,
  dedupe,
  noMessageText,
  clock,
  identityAgent,
  onlyIfWatched,
  validation,
  recordMany,
  handlesAgree,
  linkTemplate,
  vectors,
];
