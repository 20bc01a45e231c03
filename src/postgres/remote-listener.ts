import type pg from 'pg';
import type { WakeInterest } from '../../spec/index.js';
import { messageOf, type Logger } from '../shared/logger.js';
import type { PgModule } from './driver.js';
import { describeError } from './errors.js';
import { concerns, groupsOf, listenedChannels, namedGroups } from './wake-channels.js';

type Listener = (payload?: string) => void;
type SocketHandle = { readStop?: () => unknown; readStart?: () => unknown };

interface Entry {
  /** R75: the wake groups this listener wants; undefined: every wake. */
  groups: ReadonlySet<string> | undefined;
  /** The last news payload handed to it: one commit's copies on two group channels reach it once. */
  lastNews: string | undefined;
}

/** R74's news names its transaction (`;x:`), so two equal ones are copies of one commit's wake. */
const NEWS = /^w:[0-9a-f,]*;x:/;

/**
 * The statements that take a connection listening on `from` to listening on `to`, sent as one
 * round trip: a new channel is listened on before an old one is left, so no commit falls between.
 */
function changeStatements(from: ReadonlySet<string>, to: ReadonlySet<string>): string[] {
  return [...[...to].filter((c) => !from.has(c)).map((c) => `LISTEN ${c}`), ...[...from].filter((c) => !to.has(c)).map((c) => `UNLISTEN ${c}`)];
}

/**
 * The dedicated LISTEN connection behind subscribeRemote, with reconnection. R75: it listens on
 * the channels its listeners' interests need (wake-channels.ts) and hands a wake only to the
 * listeners it may concern, so a commit costs the processes, and the feeds, that serve its watchers.
 */
export class RemoteListener {
  private readonly entries = new Map<Listener, Entry>();
  private client: pg.Client | undefined;
  /** The channels the current connection listens on. */
  private listening = new Set<string>();
  /** LISTEN/UNLISTEN changes run one at a time, in order. */
  private syncing: Promise<void> = Promise.resolve();
  private connecting: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private backoffMs = 100;
  private stopped = false;
  /** R76: the socket handle whose reads are held, and the timer that ends the hold. */
  private held: { handle: SocketHandle; timer: ReturnType<typeof setTimeout> } | undefined;
  pid: number | undefined;

  constructor(
    private readonly pgm: PgModule,
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly logger: Logger,
    private readonly target: string,
    /** R76: how long the connection holds further reads after a wake (0: never). */
    private readonly holdMs: number = 0,
  ) {}

  async add(listener: Listener, interest?: WakeInterest): Promise<() => void> {
    this.stopped = false;
    this.entries.set(listener, { groups: groupsOf(interest), lastNews: undefined });
    if (!this.client && !this.connecting && !this.timer) await this.connect(false);
    else {
      if (this.connecting) await this.connecting;
      await this.sync();
    }
    return () => {
      if (!this.entries.delete(listener)) return;
      if (this.entries.size === 0) void this.stop();
      else void this.sync();
    };
  }

  /** R75: a listener's new interest; resolves once the connection listens for it (or is down: the reconnect reads, R63). */
  async interest(listener: Listener, interest: WakeInterest): Promise<void> {
    const entry = this.entries.get(listener);
    if (!entry) return;
    entry.groups = groupsOf(interest);
    if (this.connecting) await this.connecting;
    await this.sync();
  }

  /** The channels the connection listens on now (for tests and tools). */
  get channels(): string[] {
    return [...this.listening].sort();
  }

  private deliver(channel: string, payload: string | undefined): void {
    if (!this.listening.has(channel)) return;
    const news = payload !== undefined && NEWS.test(payload) ? payload : undefined;
    const named = namedGroups(payload);
    for (const [listener, entry] of [...this.entries]) {
      if (!concerns(named, entry.groups)) continue;
      if (news !== undefined) {
        if (entry.lastNews === news) continue;
        entry.lastNews = news;
      }
      this.call(listener, payload);
    }
  }

  /** R63: a wake naming nobody in particular, to every listener. */
  private fireAll(): void {
    for (const listener of [...this.entries.keys()]) this.call(listener, undefined);
  }

  private call(listener: Listener, payload: string | undefined): void {
    // The commit has happened: a listener that throws is logged, and the others still hear (R9).
    try {
      listener(payload);
    } catch (error) {
      try {
        this.logger.error('postgres store: a remote change listener threw', { error: messageOf(error) });
      } catch {
        // nor may a failing logger
      }
    }
  }

  /**
   * R76: after a wake, the connection stops reading from the socket for `holdMs`, so the wakes of
   * a busy spell arrive together and the process wakes once for them, not once per commit; the
   * first wake after a quiet spell is handed over at once. Node offers no public way to stop a
   * socket's reads (pause() still reads into the stream's buffer, waking the process each time),
   * so this uses the socket handle's readStop/readStart where they exist, and holds nothing where not.
   */
  private hold(client: pg.Client): void {
    if (this.holdMs === 0 || this.held !== undefined) return;
    const handle = (client as unknown as { connection?: { stream?: { _handle?: SocketHandle | null } } }).connection?.stream?._handle;
    if (typeof handle?.readStop !== 'function' || typeof handle.readStart !== 'function') return;
    handle.readStop();
    const timer = setTimeout(() => this.release(), this.holdMs);
    timer.unref?.();
    this.held = { handle, timer };
  }

  /**
   * Reads again at once: at the hold's end, and before a connection is ended, which waits for the
   * server's end of the socket, a thing only a reading socket sees.
   */
  private release(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    clearTimeout(held.timer);
    try {
      held.handle.readStart!();
    } catch {
      // a handle already closed: nothing to read
    }
  }

  /** Brings the connection's LISTENs to what the listeners need now. */
  private sync(): Promise<void> {
    const run = this.syncing.then(() => this.apply());
    this.syncing = run.catch(() => {});
    return run;
  }

  /** R75: the channels the listeners' interests need now. */
  private wanted(): Set<string> {
    return listenedChannels(this.channel, [...this.entries.values()].map((e) => e.groups));
  }

  private async apply(): Promise<void> {
    const client = this.client;
    if (!client || this.entries.size === 0) return;
    const want = this.wanted();
    const statements = changeStatements(this.listening, want);
    if (statements.length === 0) return;
    try {
      await client.query(statements.join('; '));
      if (client === this.client) this.listening = want;
    } catch (error) {
      // The connection is failing: its error handler reconnects, and the reconnect listens on what is wanted then.
      this.logger.warn('postgres store: changing the channels listened on failed', { target: this.target, ...describeError(error) });
    }
  }

  private connect(reconnect: boolean): Promise<void> {
    const attempt = (async () => {
      const client = new this.pgm.Client(this.config);
      client.on('error', (error) => this.dropped(client, error));
      client.on('end', () => this.dropped(client, new Error('the listening connection ended')));
      client.on('notification', (msg) => {
        // R73: the payload names the watchers the commit changed; an empty one names none in particular.
        if (client !== this.client) return;
        this.deliver(msg.channel, msg.payload === '' ? undefined : msg.payload);
        this.hold(client);
      });
      try {
        await client.connect();
        const want = this.wanted();
        await client.query(changeStatements(new Set(), want).join('; '));
        if (this.stopped) {
          await client.end().catch(() => {});
          return;
        }
        this.client = client;
        this.listening = want;
        this.pid = (client as unknown as { processID?: number }).processID;
        this.backoffMs = 100;
        if (reconnect) this.logger.warn('postgres store: the listening connection is back; re-reading pending state', { target: this.target });
        // An interest that changed while this connection came up.
        await this.sync();
        // R63: a commit that landed before LISTEN took effect (on a first connect as on a reconnect)
        // sent its NOTIFY to nobody; it is in durable state, so one re-read from here on catches it.
        this.fireAll();
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
    this.release();
    this.client = undefined;
    this.listening = new Set();
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
    this.entries.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.connecting) await this.connecting.catch(() => {});
    // A listener added while we waited (add() cleared `stopped`) owns the connection that just came up.
    if (!this.stopped) return;
    const client = this.client;
    this.release();
    this.client = undefined;
    this.listening = new Set();
    this.pid = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
