import type pg from 'pg';
import { ChangeListeners } from '../shared/listeners.js';
import type { Logger } from '../shared/logger.js';
import type { PgModule } from './driver.js';
import { describeError } from './errors.js';

/** The dedicated LISTEN connection behind subscribeRemote, with reconnection. */
export class RemoteListener {
  private readonly listeners: ChangeListeners;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private backoffMs = 100;
  private stopped = false;
  pid: number | undefined;

  constructor(
    private readonly pgm: PgModule,
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly logger: Logger,
    private readonly target: string,
  ) {
    this.listeners = new ChangeListeners(logger, 'postgres store: a remote change listener');
  }

  async add(listener: (payload?: string) => void): Promise<() => void> {
    this.stopped = false;
    const remove = this.listeners.add(listener);
    if (!this.client && !this.connecting && !this.timer) await this.connect(false);
    else if (this.connecting) await this.connecting;
    return () => {
      remove();
      if (this.listeners.size === 0) void this.stop();
    };
  }

  private fire(payload?: string): void {
    this.listeners.fire(payload);
  }

  private connect(reconnect: boolean): Promise<void> {
    const attempt = (async () => {
      const client = new this.pgm.Client(this.config);
      client.on('error', (error) => this.dropped(client, error));
      client.on('end', () => this.dropped(client, new Error('the listening connection ended')));
      client.on('notification', (msg) => {
        // R73: the payload names the watchers the commit changed; an empty one names none in particular.
        if (msg.channel === this.channel) this.fire(msg.payload === '' ? undefined : msg.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${this.channel}`);
        if (this.stopped) {
          await client.end().catch(() => {});
          return;
        }
        this.client = client;
        this.pid = (client as unknown as { processID?: number }).processID;
        this.backoffMs = 100;
        if (reconnect) this.logger.warn('postgres store: the listening connection is back; re-reading pending state', { target: this.target });
        // R63: a commit that landed before LISTEN took effect (on a first connect as on a reconnect)
        // sent its NOTIFY to nobody; it is in durable state, so one re-read from here on catches it.
        this.fire();
      } catch (error) {
        client.removeAllListeners('end');
        await client.end().catch(() => {});
        this.logger.error('postgres store: cannot LISTEN for changes; retrying', { target: this.target, ...describeError(error) });
        this.schedule();
      }
    })();
    this.connecting = attempt.finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private dropped(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.pid = undefined;
    client.removeAllListeners('end');
    void client.end().catch(() => {});
    if (this.stopped) return;
    this.logger.warn('postgres store: the listening connection dropped; reconnecting', { target: this.target, ...describeError(error) });
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(5000, this.backoffMs * 2);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) void this.connect(true);
    }, delay);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listeners.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.connecting) await this.connecting.catch(() => {});
    // A listener added while we waited (add() cleared `stopped`) owns the connection that just came up.
    if (!this.stopped) return;
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
