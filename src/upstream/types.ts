import type { JsonObject, JsonValue, Observation, UpstreamLink } from '../core/upstream/index.js';
import type { KitAbortSignal } from '../shared/abort.js';

export type MaybePromise<T> = T | Promise<T>;

/** Where a source finds one upstream thread (from the link). */
export interface SourceTarget {
  hostId: string;
  threadId: string;
  ref: JsonObject;
}

/**
 * One kind of upstream (U6, U7). Adapters are thin: I/O here, every decision in the pure core.
 * `check` may throw or be aborted; the monitor turns that into an inconclusive check (U2).
 */
export interface UpstreamSource {
  /** Matches `UpstreamLink.upstreamKind`. */
  readonly kind: string;
  /** U3: the marker at the source's current end, for a new link. Throws when there is no source to link. */
  baseline(target: SourceTarget, signal?: KitAbortSignal): Promise<JsonValue>;
  /** One check from the link's marker. */
  check(target: SourceTarget & { marker: JsonValue }, signal?: KitAbortSignal): Promise<Observation>;
  /**
   * U10: asked at every Continue. What shows that no person drives the thread (a Codex sub-agent
   * or exec session), or undefined. Such a thread is never linked.
   */
  machineDriven?(target: SourceTarget, signal?: KitAbortSignal): Promise<string | undefined>;
}

/** The compare-and-set token of a link (U8): its incarnation and revision. */
export interface LinkToken {
  serial: number;
  revision: number;
}

/**
 * The monitor's storage seam for links, markers and miss counts (they live together in the link).
 * Implementations: createMemoryLinkStore, createSqliteLinkStore.
 */
export interface UpstreamLinkStore {
  list(): MaybePromise<UpstreamLink[]>;
  get(sessionKey: string, agentId: string): MaybePromise<UpstreamLink | undefined>;
  /**
   * Writes `next` (or deletes the link when `next` is null) iff the stored link's token equals
   * `expected` (`undefined`: no link may exist). Returns whether it wrote.
   */
  compareAndSet(sessionKey: string, agentId: string, expected: LinkToken | undefined, next: UpstreamLink | null): MaybePromise<boolean>;
  /** A link serial never handed out before by this store (U3). */
  nextSerial(): MaybePromise<number>;
}
