/**
 * R82, R87, R88: every kind of answer of the live view's server by status, content type, body and
 * the headers that matter (allow, location, the security headers on each), and the live stream's
 * first bytes. A real server on a real port, in process, over a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_PATH, CONTENT_SECURITY_POLICY } from '../../src/ui/server.js';
import { startUiFixture, type CallOptions, type Reply, type UiFixture } from './server-fixture.js';

const TOKEN = 'mutation-responses-token-0123456';
let ui: UiFixture;
const call = (path: string, options?: CallOptions) => ui.call(path, options);

const TEXT = 'text/plain; charset=utf-8';

beforeAll(async () => {
  ui = await startUiFixture({
    token: TOKEN,
    seed: async (store) => void (await store.record({ sessionKey: 'agent:main:w1', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hello' })),
  });
});
afterAll(() => ui.close());

describe('R82, R87, R88: each answer by status, type, body and headers', () => {
  it('refusals: a foreign host 421, no token 401, a write 405 with Allow, an unknown path 404, each plain text saying what to do', async () => {
    const cases: [Reply, number, RegExp, Record<string, string>?][] = [
      [await call(`${APP_PATH}`, { headers: { authorization: `Bearer ${TOKEN}`, host: 'evil.example' } }), 421, /^misdirected request: use the address printed by session-state-kit ui\n$/],
      [await call(`${APP_PATH}`, { headers: {} }), 401, /^a token is required: open the address printed by session-state-kit ui\n$/],
      [await call(`${APP_PATH}api/info`, { method: 'POST' }), 405, /^read-only: only GET\n$/, { allow: 'GET, HEAD' }],
      [await call(`${APP_PATH}api/info`, { method: 'DELETE' }), 405, /^read-only: only GET\n$/, { allow: 'GET, HEAD' }],
      [await call('/elsewhere'), 404, /^not found\n$/],
      [await call(`${APP_PATH}nothing`), 404, /^not found\n$/],
    ];
    for (const [r, status, body, headers] of cases) {
      expect(r.status).toBe(status);
      expect(r.headers['content-type']).toBe(TEXT);
      expect(r.body).toMatch(body);
      for (const [k, v] of Object.entries(headers ?? {})) expect(r.headers[k]).toBe(v);
      expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    }
  });

  it('the root and the bare app path redirect into the view, keeping the query; HEAD is served like GET', async () => {
    for (const path of ['/', '/?a=1', APP_PATH.slice(0, -1), `${APP_PATH.slice(0, -1)}?b=2`]) {
      const r = await call(path);
      expect(r.status, path).toBe(303);
      expect(r.headers['location'], path).toBe(`${APP_PATH}${path.includes('?') ? path.slice(path.indexOf('?')) : ''}`);
      expect(r.body).toBe('');
    }
    const head = await call(`${APP_PATH}api/info`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
  });

  it('the page, its script, its style and the icon, each with its own type', async () => {
    const page = await call(APP_PATH);
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.body).toMatch(/^<!doctype html>/i);
    const js = await call(`${APP_PATH}app.js`);
    expect([js.status, js.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(js.body.length).toBeGreaterThan(100);
    const css = await call(`${APP_PATH}app.css`);
    expect([css.status, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    expect(css.body.length).toBeGreaterThan(10);
    const icon = await call(`${APP_PATH}favicon.ico`);
    expect([icon.status, icon.body]).toEqual([204, '']);
    expect(icon.headers['x-frame-options']).toBe('DENY');
  });

  it('the live stream opens as an event stream that says hello and how soon to reconnect', async () => {
    const live = await call(`${APP_PATH}api/live`, { firstChunk: true });
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(live.headers['connection']).toBe('keep-alive');
    expect(live.headers['cache-control']).toBe('no-store');
    expect(live.body.startsWith('retry: 1000\nevent: hello\ndata: {}\n\n')).toBe(true);
  });
});
