/**
 * The live view's HTTP API by its answers (R82, R85, R87): every parameter's bounds and the text
 * and field of its refusal, each page's keyset parameters, the security headers, where a token may
 * come from and which host names loopback serves. A real server on a real port, in process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_PATH, isLoopbackHost, tokenCookieName } from '../../src/ui/server.js';
import { MAX_PAGE } from '../../src/ui/source.js';
import { startUiFixture, type UiFixture } from './server-fixture.js';

const TOKEN = 'mutation-api-token-0123456789';
let ui: UiFixture;
const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => ui.call(path, { headers });
const api = (path: string) => ui.api(path);

beforeAll(async () => {
  ui = await startUiFixture({
    token: TOKEN,
    seed: async (store, tick) => {
      await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:w1', agentId: 'main' });
      await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:w2', agentId: 'main' });
      await store.watch({ watcherSessionKey: 'agent:main:boss', targetSessionKey: 'agent:main:w2', agentId: 'main' });
      for (const s of ['agent:main:w1', 'agent:main:w2', 'agent:main:w3']) {
        await store.record({ sessionKey: s, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: `to ${s}` });
        tick();
      }
    },
  });
});
afterAll(() => ui.close());

describe('R87: the door', () => {
  it('the token by header, by query (traded for a path-scoped cookie) or by that cookie; nothing else', async () => {
    expect((await get(`${APP_PATH}api/info`, {})).status).toBe(401);
    expect((await get(`${APP_PATH}api/info`, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await get(`${APP_PATH}api/info`, { authorization: `Basic ${TOKEN}` })).status).toBe(401);
    const traded = await get(`${APP_PATH}api/info?token=${TOKEN}&x=1`, {});
    expect(traded.status).toBe(303);
    expect(traded.headers['location']).toBe(`${APP_PATH}api/info?x=1`);
    expect(traded.headers['set-cookie']).toEqual([`${tokenCookieName(ui.server.port)}=${TOKEN}; HttpOnly; SameSite=Strict; Path=${APP_PATH}`]);
    const name = tokenCookieName(ui.server.port);
    expect((await get(`${APP_PATH}api/info`, { cookie: `other=1; ${name}=${TOKEN}` })).status).toBe(200);
    expect((await get(`${APP_PATH}api/info`, { cookie: `${name}x=${TOKEN}` })).status).toBe(401);
    expect((await get(`${APP_PATH}api/info`, { cookie: `=${TOKEN}; x${name}=${TOKEN}` })).status).toBe(401);
    // Outside the view's path the query token still goes, but only ever back into the view.
    expect((await get(`/elsewhere?token=${TOKEN}`, {})).headers['location']).toBe(APP_PATH);
  });

  it('loopback serves its own names only (DNS rebinding), with the security headers on every answer', async () => {
    for (const host of ['127.0.0.1', 'localhost', '127.3.2.1', '127.10.200.30', '127.1.22.3', '127.1.2.33', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['127.0.0.1.evil.example', 'x127.0.0.1', '127.0.0', '127.a.0.1', 'evil.example', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
    const evil = await get(`${APP_PATH}api/info`, { authorization: `Bearer ${TOKEN}`, host: 'evil.example' });
    expect(evil.status).toBe(421);
    const ok = await get(`${APP_PATH}api/info`, { authorization: `Bearer ${TOKEN}`, host: `127.0.0.1:${ui.server.port}` });
    expect(ok.status).toBe(200);
    // The port is cut from the end only: an IPv6 name keeps its own colons.
    expect((await get(`${APP_PATH}api/info`, { authorization: `Bearer ${TOKEN}`, host: `[::1]:${ui.server.port}` })).status).toBe(200);
    for (const r of [ok, evil, await get(`${APP_PATH}nothing`)]) {
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('R82, R85: the API', () => {
  it('info; an unknown endpoint is 404 by name', async () => {
    expect(await api('info')).toEqual({ status: 200, json: { label: ui.source.label, readOnly: true, pageLimit: MAX_PAGE } });
    expect(await api('nothing')).toEqual({ status: 404, json: { error: 'no such endpoint' } });
  });

  it('limit and minutes: integers within their bounds, else 400 naming them', async () => {
    for (const bad of ['0', `${MAX_PAGE + 1}`, '1e2', '-1', '2.5', ' 3', '12345678901234567'])
      expect(await api(`sessions?limit=${encodeURIComponent(bad)}`), bad).toEqual({ status: 400, json: { error: `limit must be an integer from 1 to ${MAX_PAGE}`, field: 'limit' } });
    expect((await api('sessions?limit=1')).json['rows']).toHaveLength(1);
    expect((await api(`sessions?limit=${MAX_PAGE}`)).status).toBe(200);
    expect((await api('sessions?limit=')).status).toBe(200);
    for (const bad of ['0', '1441']) expect(await api(`activity?minutes=${bad}`), bad).toEqual({ status: 400, json: { error: 'minutes must be an integer from 1 to 1440', field: 'minutes' } });
    expect(((await api('activity?minutes=1440')).json['buckets'] as unknown[]).length).toBe(1440);
    expect(((await api('activity')).json['buckets'] as unknown[]).length).toBe(60);
  });

  it('sessions: search and agent bounded, a keyset by key and agent (or a watcher-only key alone)', async () => {
    const control = await api(`sessions?search=${encodeURIComponent('a\u0001')}`);
    expect(control).toEqual({ status: 400, json: { error: 'search must be at most 200 characters without control characters', field: 'search' } });
    expect((await api(`sessions?search=${'w'.repeat(201)}`)).status).toBe(400);
    expect((await api(`sessions?search=${'w'.repeat(200)}`)).json['rows']).toEqual([]);
    expect((await api(`sessions?agent=${encodeURIComponent('x\u007f')}`)).json['field']).toBe('agent');
    const keys = async (q: string) => ((await api(`sessions?${q}`)).json['rows'] as { sessionKey: string; agentId: string }[]).map((r) => `${r.sessionKey}/${r.agentId}`);
    expect(await keys('search=W2')).toEqual(['agent:main:w2/main']);
    expect(await keys('agent=main')).toEqual(['agent:main:w1/main', 'agent:main:w2/main', 'agent:main:w3/main']);
    expect(await keys('agent=ops')).toEqual([]);
    expect(await keys('afterKey=agent:main:w1&afterAgent=main')).toEqual(['agent:main:w2/main', 'agent:main:w3/main']);
    // A watcher-only row's keyset is (key, ''): the next rows start after it.
    expect(await keys('afterKey=agent:main:boss')).toEqual(['agent:main:lead/', 'agent:main:w1/main', 'agent:main:w2/main', 'agent:main:w3/main']);
    expect(await api('sessions?afterKey=agent:main:w1&afterAgent=ops')).toMatchObject({ status: 400, json: { field: 'afterAgent' } });
    expect(await api(`sessions?afterKey=${encodeURIComponent('agent:main:a b\u0000')}`)).toMatchObject({ status: 400, json: { field: 'afterKey' } });
  });

  it('timeline: session and agent required by name, an unknown session 404, `before` pages back', async () => {
    expect(await api('timeline')).toEqual({ status: 400, json: { error: 'session is required', field: 'session' } });
    expect(await api('timeline?session=agent:main:w1')).toEqual({ status: 400, json: { error: 'agent is required', field: 'agent' } });
    expect(await api('timeline?session=agent:main:w1&agent=ops')).toMatchObject({ status: 400, json: { field: 'agent' } });
    expect(await api('timeline?session=agent:main:nobody&agent=main')).toEqual({ status: 404, json: { error: 'no such session', field: 'session' } });
    const t = (await api('timeline?session=agent:main:w2&agent=main')).json as { events: { sequence: number }[]; head: { stateVersion: number } };
    expect(t.events.map((e) => e.sequence)).toEqual([2]);
    expect(t.head.stateVersion).toBe(2);
    expect(((await api('timeline?session=agent:main:w2&agent=main&before=2')).json['events'] as unknown[]).length).toBe(0);
    expect((await api('timeline?session=agent:main:w2&agent=main&before=0')).json['field']).toBe('before');
  });

  it('watches: pending only with pending=1, one session, and a keyset of target agent, target and watcher', async () => {
    const pairs = async (q: string) => ((await api(`watches?${q}`)).json['rows'] as { watcherSessionKey: string; targetSessionKey: string }[]).map((r) => `${r.watcherSessionKey}>${r.targetSessionKey}`);
    const all = ['agent:main:lead>agent:main:w1', 'agent:main:boss>agent:main:w2', 'agent:main:lead>agent:main:w2'];
    expect(await pairs('')).toEqual(all);
    expect(await pairs('pending=1')).toEqual(all);
    expect(await pairs('pending=0')).toEqual(all);
    expect(await pairs('session=agent:main:boss')).toEqual(['agent:main:boss>agent:main:w2']);
    expect(await pairs('afterTarget=agent:main:w1&afterWatcher=agent:main:lead&afterAgent=main')).toEqual(all.slice(1));
    expect(await pairs('afterTarget=agent:main:w2&afterWatcher=agent:main:boss&afterAgent=main')).toEqual(all.slice(2));
    // A keyset missing a part is no keyset.
    expect(await pairs('afterTarget=agent:main:w1&afterWatcher=agent:main:lead')).toEqual(all);
    expect(await pairs('afterTarget=agent:main:w1&afterAgent=main')).toEqual(all);
    expect(await pairs('afterWatcher=agent:main:lead&afterAgent=main')).toEqual(all);
    expect(await pairs('afterAgent=main')).toEqual(all);
    expect(await api('watches?afterTarget=agent:main:w1&afterWatcher=agent:main:lead&afterAgent=ops')).toMatchObject({ status: 400, json: { field: 'afterAgent' } });
    expect(await api(`watches?session=${encodeURIComponent('bad key\u0000')}`)).toMatchObject({ status: 400, json: { field: 'session' } });
    const page = (await api('watches?limit=2')).json as { next?: { targetAgentId: string; targetSessionKey: string; watcherSessionKey: string } };
    expect(page.next).toEqual({ targetAgentId: 'main', targetSessionKey: 'agent:main:w2', watcherSessionKey: 'agent:main:boss' });
  });
});
