/**
 * The standard AbortSignal as the kit's public types name it. Where the consumer's program has one
 * (lib "dom", @types/node, Bun or Deno types) this IS that type, so a signal the kit hands over
 * can go straight to `fetch` or `fs`. Where it has none (lib es2022 alone), it falls back to the
 * part the kit uses, so the published declarations still check with skipLibCheck false instead
 * of naming a type that does not exist there.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  /** Calls `listener` when the signal aborts. */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  /** Stops calling `listener`. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The AbortSignal type of the consumer's environment where it has one, else AbortSignalLike (see there). */
export type KitAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : AbortSignalLike;
