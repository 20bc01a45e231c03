/**
 * R86: the live event stream under load. One commit that raises many notices is one `notice`
 * frame per page, not one per notice; and a page that never reads its stream is not queued for
 * without bound, however many commits come. Sizes are counted (frames, bytes), never timed.
 */
import { ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingPair } from '../../spec/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { LiveClient, MAX_LIVE_QUEUED_BYTES } from '../../src/ui/live.js';
import { startUiServer } from '../../src/ui/server.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import type { UiSource } from '../../src/ui/source.js';

const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const frames = (text: string, event: string) => text.split('\n\n').filter((f) => f.startsWith(`event: ${event}\n`));

describe('R86: the live stream', () => {
  it('one commit that raises 50 notices is one notice frame per page', async () => {
    const db = join(dir, 'many.db');
    const writer = createSqliteStore({ path: db });
    const source = SqliteUiSource.open(db);
    const server = await startUiServer({ source, pollMs: 20 });
    let text = '';
    const req = request(`${server.base}api/live`, { headers: { authorization: `Bearer ${server.token}` } }, (res) => res.setEncoding('utf8').on('data', (d: string) => (text += d)));
    req.end();
    try {
      await expect.poll(() => text).toContain('event: hello');
      const watchers = Array.from({ length: 50 }, (_, i) => `agent:main:w${String(i).padStart(2, '0')}`);
      writer.record({ sessionKey: 'agent:main:target', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'one commit, 50 notices', watchers });
      await expect.poll(() => frames(text, 'notice').length, { timeout: 10_000 }).toBeGreaterThan(0);
      // A second commit with one notice: once its frame is here, everything of the first has arrived.
      writer.record({ sessionKey: 'agent:main:other', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'one more', watchers: ['agent:main:barrier'] });
      await expect.poll(() => text, { timeout: 10_000 }).toContain('agent:main:barrier');
      const notices = frames(text, 'notice').map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as { watcherSessionKey: string; more?: number });
      expect(notices).toHaveLength(2);
      expect(watchers).toContain(notices[0]!.watcherSessionKey);
      expect(notices[0]!.more).toBe(49);
      expect(notices[1]).toEqual({ watcherSessionKey: 'agent:main:barrier' });
    } finally {
      req.destroy();
      await server.close();
      await source.close();
      writer.close();
    }
  });

  it('a page that never reads: 40 commits of 1,000 notices each leave a bounded queue, and it is told "changed" once it reads', async () => {
    // A store whose every read finds all 1,000 watchers with a new L (R60 news): each poll is one
    // commit raising 1,000 notices, with keys near R1's 512 code points.
    const WATCHERS = 1000;
    const COMMITS = 40;
    let round = 0;
    let reads = 0;
    const keys = Array.from({ length: WATCHERS }, (_, i) => `agent:main:${'w'.repeat(490)}${i}`);
    const pairs = (): PendingPair[] => keys.map((k) => ({ watcherSessionKey: k, targetSessionKey: 'agent:main:t', targetAgentId: 'main', lastSeenSequence: round, wake: 'immediate' }));
    const listPending = async () => {
      reads++;
      if (reads <= COMMITS) round++;
      return pairs();
    };
    const source: UiSource = {
      label: 'churn',
      sessions: async () => ({ rows: [] }),
      timeline: async () => ({ events: [] }),
      watches: async () => ({ rows: [] }),
      activity: async () => ({ end: 0, buckets: [] }),
      changeToken: async () => round,
      listPending,
      feedSource: () => ({ listPending, changeToken: async () => round, onLocalChange: () => () => {} }),
      close: async () => {},
    };
    // The server's side of each stream, found by its first frame, to read what it has queued.
    const streams = new Set<ServerResponse>();
    let writes = 0;
    const write = ServerResponse.prototype.write;
    vi.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (this: ServerResponse, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith('retry:')) streams.add(this);
      if (streams.has(this)) writes++;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    });
    const server = await startUiServer({ source, pollMs: 5 });
    const socket: Socket = connect(server.port, '127.0.0.1');
    try {
      await new Promise<void>((r) => socket.once('connect', r));
      socket.write(`GET ${new URL(server.base).pathname}api/live HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
      socket.pause(); // never reads
      await expect.poll(() => streams.size).toBe(1);
      const [stream] = [...streams];
      await expect.poll(() => reads, { timeout: 30_000 }).toBeGreaterThan(COMMITS);
      // 40 x 1,000 notices of ~540 bytes (21 MB) were raised; what this process holds for the page
      // is bounded, and so is the number of frames written (at most a notice and a changed per commit).
      expect(stream!.writableLength).toBeLessThanOrEqual(MAX_LIVE_QUEUED_BYTES + 4096);
      expect(writes).toBeLessThanOrEqual(2 * COMMITS + 10);
      // Once it reads, the page is told that something changed, and refetches what it shows.
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => (text += d));
      socket.resume();
      await expect.poll(() => text.includes('event: changed'), { timeout: 10_000 }).toBe(true);
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  it('the per-page cap: past it frames are dropped, not queued, and the page is owed one "changed" for when it reads', async () => {
    let client: LiveClient | undefined;
    const http = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      client = new LiveClient(res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const socket = connect((http.address() as AddressInfo).port, '127.0.0.1');
    try {
      await new Promise<void>((r) => socket.once('connect', r));
      // HTTP/1.0: the body comes unchunked, so frames can be counted in the bytes as they arrive.
      socket.write('GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
      socket.pause(); // never reads
      await expect.poll(() => client !== undefined).toBe(true);
      // 400 frames of 32 KiB (12.5 MiB): far more than the kernel's socket buffers hold.
      const SENT = 400;
      const frame = `event: notice\ndata: ${JSON.stringify({ watcherSessionKey: 'x'.repeat(32 * 1024) })}\n\n`;
      // One frame a turn of the event loop, as commits come (a response is corked within a turn).
      for (let i = 0; i < SENT; i++) {
        client!.send(frame);
        await new Promise((r) => setImmediate(r));
      }
      expect(client!.res.writableLength).toBeLessThanOrEqual(MAX_LIVE_QUEUED_BYTES + frame.length);
      expect(client!.dropped).toBeGreaterThan(0);
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => (text += d));
      socket.resume();
      // Everything written arrives, then the one owed "changed"; the dropped frames never do.
      await expect.poll(() => text.endsWith('event: changed\ndata: {}\n\n'), { timeout: 10_000 }).toBe(true);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      expect(frames(body, 'notice')).toHaveLength(SENT - client!.dropped);
      expect(frames(body, 'changed')).toHaveLength(1);
    } finally {
      socket.destroy();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });
});
