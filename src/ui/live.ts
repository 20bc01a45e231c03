import type { ServerResponse } from 'node:http';

/**
 * One page's server-sent-event stream (R86). Frames carry no state, so a page that falls behind
 * loses nothing by missing some: it is owed one `changed`, after which it refetches what it shows.
 */

/** R86: the most bytes this process holds for one page's stream before it stops writing to it. */
export const MAX_LIVE_QUEUED_BYTES = 64 * 1024;

const CHANGED_FRAME = 'event: changed\ndata: {}\n\n';

export class LiveClient {
  /** Frames not written because the page was not reading (counted for tests and diagnostics). */
  dropped = 0;
  private owed = false;

  constructor(
    readonly res: ServerResponse,
    private readonly maxQueued = MAX_LIVE_QUEUED_BYTES,
  ) {
    // 'drain' follows a write that returned false, which every stop below the cap implies.
    res.on('drain', () => {
      if (!this.owed || this.behind()) return;
      this.owed = false;
      res.write(CHANGED_FRAME);
    });
  }

  /** Behind: the socket asked to drain, or more than the cap waits in this process (R86). */
  private behind(): boolean {
    return this.res.writableNeedDrain || this.res.writableLength > this.maxQueued;
  }

  /** Writes the frame, or, while the page is behind, drops it and owes the page one `changed`. */
  send(frame: string): void {
    if (this.behind()) {
      this.owed = true;
      this.dropped++;
      return;
    }
    this.res.write(frame);
  }

  /** A comment that keeps an idle stream open through proxies; never owed. */
  keepAlive(): void {
    if (!this.behind()) this.res.write(': keep-alive\n\n');
  }
}
