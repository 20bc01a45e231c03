/**
 * The live view's server, decision by decision, where the answers alone do not show them (R82,
 * R84, R86, R87): the change token polled one read at a time and only a change being news, live
 * work starting with the first page and stopping with the last, the keep-alive, failures logged
 * and answered, the listen and close of the server itself, and the corners of the door (a token
 * that is only almost one, a cookie among others, a Basic header beside a good cookie).
 */
import { request, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import { APP_PATH, TOKEN_PATTERN, startUiServer, tokenCookieName } from '../../src/ui/server.js';
import type { UiSource } from '../../src/ui/source.js';
import type { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import { callServer, startUiFixture, type UiFixture } from './server-fixture.js';

const TOKEN = 'mutation-server-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Serves `s`, with some of its methods replaced (the rest read through to it). */
function over(s: SqliteUiSource, replaced: Partial<UiSource>): UiSource {
  return Object.assign(Object.create(s) as UiSource, replaced);
}

/** One page's event stream: the events and comments it received so far, by name. */
interface Page {
  events: string[];
  ended: boolean;
  close(): void;
}

function openPage(port: number): Promise<Page> {
  return new Promise((resolve, reject) => {
    const page: Page = { events: [], ended: false, close: () => req.destroy() };
    const req = request(`http://127.0.0.1:${port}${APP_PATH}api/live`, { headers: { authorization: `Bearer ${TOKEN}` } }, (res: IncomingMessage) => {
      let buffered = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        buffered += d;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const name = /^event: (\w+)$/m.exec(frame)?.[1] ?? (frame.startsWith(':') ? frame : 'other');
          page.events.push(name);
        }
      });
      res.on('end', () => (page.ended = true));
      resolve(page);
    });
    req.on('error', (e) => (page.events.length === 0 ? reject(e) : undefined));
    req.end();
  });
}

/** Waits, polling, until `ok` holds; fails naming `what` after 10 s. */
const until = (what: string, ok: () => boolean) => expect.poll(ok, { timeout: 10_000, message: `waiting for ${what}` }).toBe(true);

const count = (page: Page, name: string) => page.events.filter((e) => e === name).length;

describe('R86: the change token', () => {
  let ui: UiFixture;
  let token = 'a';
  let calls = 0;
  let inFlight = 0;
  let most = 0;
  let failNext = false;
  const logger = memoryLogger();
  beforeAll(async () => {
    ui = await startUiFixture({
      token: TOKEN,
      pollMs: 10,
      logger,
      wrap: (s) =>
        over(s, {
          changeToken: async () => {
            calls++;
            most = Math.max(most, ++inFlight);
            await sleep(60); // six polls' time: a poll must not start while one reads
            inFlight--;
            if (failNext) {
              failNext = false;
              throw new Error('token read failed');
            }
            return token;
          },
        }),
    });
  });
  afterAll(() => ui.close());

  it('is read one poll at a time, and only a change of it is a `changed` for the page', async () => {
    const page = await openPage(ui.server.port);
    await until('three token reads', () => calls >= 3);
    expect(most).toBe(1);
    expect(count(page, 'changed')).toBe(0);
    token = 'b';
    await until('a changed event', () => count(page, 'changed') === 1);
    const after = calls;
    await until('three more token reads', () => calls >= after + 3);
    expect(count(page, 'changed')).toBe(1);
    page.close();
  });

  it('a token read that fails is logged and the next poll tries again', async () => {
    const page = await openPage(ui.server.port);
    await until('a first read', () => calls > 0);
    failNext = true;
    await until('the failure logged', () => logger.entries.length > 0);
    expect(logger.entries[0]).toMatchObject({ level: 'error', message: 'ui: reading the change token failed; retrying', details: { error: 'token read failed' } });
    const after = calls;
    await until('a read after the failure', () => calls > after);
    page.close();
  });
});

describe('R86: live work runs while a page listens, and only then', () => {
  let ui: UiFixture;
  let token = 1;
  let calls = 0;
  beforeAll(async () => {
    ui = await startUiFixture({ token: TOKEN, pollMs: 10, wrap: (s) => over(s, { changeToken: async () => (calls++, token) }) });
  });
  afterAll(() => ui.close());

  it('starts with the first page, keeps going while one is left, and stops with the last', async () => {
    expect(calls).toBe(0);
    const first = await openPage(ui.server.port);
    const second = await openPage(ui.server.port);
    await until('polling', () => calls >= 2);
    first.close();
    await sleep(50);
    token = 2;
    await until('the page left told of the change', () => count(second, 'changed') === 1);
    second.close();
    await sleep(100);
    const stopped = calls;
    await sleep(300);
    // A second start (one per page) would leave a poller nobody stops.
    expect(calls).toBe(stopped);
  });
});

describe('R86: the default poll', () => {
  it('without pollMs the token is read every 250 ms while a page listens, not as fast as timers go', async () => {
    let calls = 0;
    const ui = await startUiFixture({ token: TOKEN, pollMs: 'server-default', wrap: (s) => over(s, { changeToken: async () => (calls++, 1) }) });
    try {
      const page = await openPage(ui.server.port);
      await until('a first read', () => calls > 0);
      await sleep(400);
      // 250 ms apart: at most three more in 400 ms (a 1 ms poll would be hundreds).
      expect(calls).toBeLessThanOrEqual(4);
      page.close();
    } finally {
      await ui.close();
    }
  });
});

describe('R86: the keep-alive', () => {
  afterEach(() => void vi.useRealTimers());

  it('every 15 seconds each page gets a comment, which is not an event', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const ui = await startUiFixture({ token: TOKEN, pollMs: 60_000 });
    try {
      const page = await openPage(ui.server.port);
      await until('hello', () => count(page, 'hello') === 1);
      vi.advanceTimersByTime(14_999);
      await sleep(50);
      expect(count(page, ': keep-alive')).toBe(0);
      vi.advanceTimersByTime(1);
      await until('a keep-alive', () => count(page, ': keep-alive') === 1);
      vi.advanceTimersByTime(15_000);
      await until('a second keep-alive', () => count(page, ': keep-alive') === 2);
      page.close();
    } finally {
      vi.useRealTimers();
      await ui.close();
    }
  });
});

describe('failures: logged, and answered', () => {
  let ui: UiFixture;
  const logger = memoryLogger();
  let feedFails = false;
  beforeAll(async () => {
    ui = await startUiFixture({
      token: TOKEN,
      logger,
      wrap: (s) =>
        over(s, {
          sessions: () => Promise.reject(new Error('disk gone')),
          feedSource: () => {
            if (feedFails) throw new Error('no feed here');
            return s.feedSource();
          },
        }),
    });
  });
  afterAll(() => ui.close());

  it('a read that fails is a 500 whose JSON says why, and is logged with its path', async () => {
    logger.entries.length = 0;
    expect(await ui.api('sessions')).toEqual({ status: 500, json: { error: 'disk gone' } });
    expect(logger.entries).toEqual([{ level: 'error', message: 'ui: a read failed', details: expect.objectContaining({ path: '/api/sessions', error: 'disk gone' }) }]);
  });

  it('a request that cannot be handled is a plain 500 before any header, and an ended stream after', async () => {
    logger.entries.length = 0;
    // The URL parser refuses this request line's path.
    const bad = await ui.call('//[');
    expect([bad.status, bad.headers['content-type'], bad.body]).toEqual([500, 'text/plain; charset=utf-8', 'internal error\n']);
    expect(logger.entries).toEqual([{ level: 'error', message: 'ui: request failed', details: expect.objectContaining({ error: expect.stringMatching(/Invalid URL/) }) }]);
    feedFails = true;
    try {
      const page = await openPage(ui.server.port);
      await until('the stream ended', () => page.ended);
      expect(page.events).toEqual(['hello']);
      expect(logger.entries.at(-1)).toMatchObject({ message: 'ui: request failed', details: { error: 'no feed here' } });
    } finally {
      feedFails = false;
    }
  });
});

describe('R82, R84, R87: corners of the door and the API', () => {
  let ui: UiFixture;
  beforeAll(async () => {
    ui = await startUiFixture({
      token: TOKEN,
      seed: async (store, tick) => {
        await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:w1', agentId: 'main' });
        for (const s of ['agent:main:w1', 'agent:main:w1', 'agent:main:w2']) {
          await store.record({ sessionKey: s, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: `to ${s}` });
          tick();
        }
        // Watched after its last event: a pair with nothing pending.
        await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:w2', agentId: 'main' });
      },
    });
  });
  afterAll(() => ui.close());

  it('a token is exactly TOKEN_PATTERN, anchored at both ends', async () => {
    for (const bad of [`!${'a'.repeat(16)}`, `${'a'.repeat(16)}!`, 'a'.repeat(201), 'a'.repeat(15)]) {
      expect(TOKEN_PATTERN.test(bad), bad).toBe(false);
      await expect(startUiServer({ source: ui.source, token: bad })).rejects.toThrow(RangeError);
    }
  });

  it('the cookie is found among others and trimmed; a Basic header does not hide it', async () => {
    const name = tokenCookieName(ui.server.port);
    const info = `${APP_PATH}api/info`;
    // A part without "=" whose first characters spell the name is not the cookie.
    expect((await ui.call(info, { headers: { cookie: `${name}x; ${name}=${TOKEN}` } })).status).toBe(200);
    expect((await ui.call(info, { headers: { cookie: `${name}=${TOKEN} ; other=1` } })).status).toBe(200);
    expect((await ui.call(info, { headers: { authorization: 'Basic dXNlcjpwYXNz', cookie: `${name}=${TOKEN}` } })).status).toBe(200);
  });

  it('a path outside the view is not found, even when its tail looks like the API', async () => {
    const r = await ui.call('/xxxxxx/api/info');
    expect([r.status, r.body]).toEqual([404, 'not found\n']);
  });

  it('redirects are plain text', async () => {
    for (const path of ['/', `/?token=${TOKEN}`]) {
      const r = await ui.call(path, path.includes('token') ? { headers: {} } : undefined);
      expect([r.status, r.headers['content-type']], path).toEqual([303, 'text/plain; charset=utf-8']);
    }
  });

  it('an empty key is no key; an empty agent is a missing one; afterAgent alone is no keyset', async () => {
    const keys = async (q: string) => ((await ui.api(`sessions?${q}`)).json['rows'] as { sessionKey: string; agentId: string }[]).map((r) => `${r.sessionKey}/${r.agentId}`);
    const all = await keys('');
    expect(all).toEqual(['agent:main:lead/', 'agent:main:w1/main', 'agent:main:w2/main']);
    expect(await keys('afterKey=')).toEqual(all);
    expect(await keys('afterAgent=main')).toEqual(all);
    expect(await ui.api('timeline?session=agent:main:w1&agent=')).toEqual({ status: 400, json: { error: 'agent is required', field: 'agent' } });
    expect(await ui.api('timeline?session=&agent=main')).toEqual({ status: 400, json: { error: 'session is required', field: 'session' } });
  });

  it('pending=1 leaves out a pair with nothing pending; a page exactly full has no next', async () => {
    const pairs = async (q: string) => (await ui.api(`watches?${q}`)).json as { rows: { targetSessionKey: string }[]; next?: unknown };
    expect((await pairs('')).rows.map((r) => r.targetSessionKey)).toEqual(['agent:main:w1', 'agent:main:w2']);
    expect((await pairs('pending=1')).rows.map((r) => r.targetSessionKey)).toEqual(['agent:main:w1']);
    expect((await pairs('pending=0')).rows).toHaveLength(2);
    const full = await pairs('limit=2');
    expect(full.rows).toHaveLength(2);
    expect('next' in full).toBe(false);
    expect('next' in (await pairs('limit=1'))).toBe(true);
  });

  it('a timeline page with more behind it says next, and says byteLimited only when bytes stopped it', async () => {
    const page = (await ui.api('timeline?session=agent:main:w1&agent=main&limit=1')).json;
    expect(page['next']).toBe(2);
    expect('byteLimited' in page).toBe(false);
  });
});

describe('the server itself', () => {
  let ui: UiFixture;
  beforeAll(async () => {
    ui = await startUiFixture({ token: TOKEN });
  });
  afterAll(() => ui.close());

  it('listens on the port asked for, and a port in use is an error, not a hang', async () => {
    await expect(startUiServer({ source: ui.source, token: TOKEN, port: ui.server.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const other = await startUiServer({ source: ui.source, token: TOKEN });
    const port = other.port;
    await other.close();
    const again = await startUiServer({ source: ui.source, token: TOKEN, port });
    try {
      expect(again.port).toBe(port);
    } finally {
      await again.close();
    }
  });

  it('after close, nothing answers', async () => {
    const other = await startUiServer({ source: ui.source, token: TOKEN });
    expect((await callServer(other.port, TOKEN, `${APP_PATH}api/info`)).status).toBe(200);
    await other.close();
    // Refused, or reset where the client had kept the connection alive.
    await expect(callServer(other.port, TOKEN, `${APP_PATH}api/info`)).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/) });
  });

  it('an IPv6 host is shown in brackets in the printed address', async () => {
    const v6 = await startUiServer({ source: ui.source, token: TOKEN, host: '::1' });
    try {
      expect(v6.url).toBe(`http://[::1]:${v6.port}/?token=${TOKEN}`);
      expect(v6.base).toBe(`http://[::1]:${v6.port}${APP_PATH}`);
    } finally {
      await v6.close();
    }
  });
});
