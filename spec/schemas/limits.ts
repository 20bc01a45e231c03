/**
 * Named limits of the protocol. PROTOCOL.md cites each by name; stores take
 * `retentionMs` / `maxRows` overrides for tests, never the others.
 */
export const LIMITS = {
  /** R30: most events one changesSince read returns. */
  maxChangesPerRead: 200,
  /** R40: events older than this (by occurredAt) are pruned; idle cursors expire after it too. */
  retentionMs: 30 * 24 * 60 * 60 * 1000,
  /** R41: global row cap of the signal log. */
  maxRows: 50_000,
  /** R6: occurredAt from an upstream clock is clamped into [now - skew, now]. */
  occurredAtSkewMs: 24 * 60 * 60 * 1000,
  /** R43: pruning runs from the write path at most this often. */
  pruneIntervalMs: 60 * 60 * 1000,
  /** R3: one-line summary length, in Unicode code points (as JSON Schema maxLength counts). */
  summaryMaxLength: 200,
  /** R1: session keys, actor ids, run ids, dedupe keys, in Unicode code points. */
  keyMaxLength: 512,
  /** R1: agent ids. */
  agentIdMaxLength: 64,
  /** Producer-passed watchers per record call. */
  maxWatchersPerRecord: 100_000,
  /** R27b: most notices one ackNotices call acknowledges. */
  maxNoticesPerAck: 10_000,
  /** R9e: most inputs one recordMany call records (one write transaction; bounds how long it holds the lock). */
  maxRecordsPerBatch: 1_000,
  /** U4: own recent user messages compared for self-echo. */
  selfEchoWindow: 10,
  /** U2: consecutive missing checks before upstream_missing. */
  upstreamMissLimit: 3,
  /** U6: bytes one JSONL scan reads per tick (twice that while a longer line is read on). */
  upstreamScanMaxBytes: 1024 * 1024,
  /** U7: paired-node history items per page (a check reads up to 4 pages). */
  remoteHistoryWindow: 50,
} as const;

/** The type of LIMITS: each named protocol limit with its literal value. */
export type Limits = typeof LIMITS;
