/**
 * The live view's server and reads without a browser (PROTOCOL.md section 13): read-only, bounded
 * pages on indexes at 10k sessions and 1M events, the token and host rules, escaping headers, the
 * live event stream, and bad input named by field.
 */
import { request } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { APP_CSS, APP_JS, pageHtml } from '../../src/ui/assets.js';
import { APP_PATH, CONTENT_SECURITY_POLICY, startUiServer, tokenCookieName, type UiServer } from '../../src/ui/server.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import { NEXT_WATCHER_SQL, UI_SQL, sessionsParams, sessionsSql, watchesSql } from '../../src/sqlite/state-reader.js';
import { MAX_PAGE, type UiSource } from '../../src/ui/source.js';
import { fingerprint, runCli, useBuiltCli } from '../cli/helpers.js';
import { startUi } from './browser.js';
import { TEAM, buildTeam } from './team.js';

const cli = useBuiltCli();
const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Counts the change-token reads, to see when the server polls. */
function counting(source: UiSource): UiSource & { tokenReads: number } {
  const wrapped = Object.create(source) as UiSource & { tokenReads: number };
  wrapped.tokenReads = 0;
  wrapped.changeToken = async () => {
    wrapped.tokenReads++;
    return source.changeToken();
  };
  return wrapped;
}

describe('a team file through the server', () => {
  const db = join(dir, 'team.db');
  let source: SqliteUiSource;
  let server: UiServer;
  let base = '';
  beforeAll(async () => {
    buildTeam(db);
    source = SqliteUiSource.open(db);
    server = await startUiServer({ source, pollMs: 20 });
    base = server.base;
  });
  const authed = (url: string, headers: Record<string, string> = {}, method = 'GET') => get(url, { authorization: `Bearer ${server.token}`, ...headers }, method);
  afterAll(async () => {
    await server.close();
    await source.close();
  });

  it('R80: the connection refuses writes, the server answers only GET and HEAD, and the file is unchanged', async () => {
    const before = fingerprint(db);
    expect(() => (source as unknown as { reads: { db: { exec(sql: string): void } } }).reads.db.exec('CREATE TABLE x (a)')).toThrow(/readonly|query_only/i);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect((await authed(`${base}api/sessions`, {}, method)).status).toBe(405);
    for (const path of ['', 'api/sessions', 'api/watches', 'api/activity', `api/timeline?session=${encodeURIComponent(TEAM.research)}&agent=main`]) {
      expect((await authed(`${base}${path}`)).status).toBe(200);
    }
    expect(fingerprint(db)).toEqual(before);
  });

  it('R88: every response carries the Content-Security-Policy and nosniff', async () => {
    for (const path of ['', 'app.js', 'app.css', 'api/info', 'api/nope', 'nope', 'api/timeline']) {
      const r = await authed(`${base}${path}`);
      expect(r.headers['content-security-policy'], path).toBe(CONTENT_SECURITY_POLICY);
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
    }
    expect(CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('R88: the page script never parses text as markup', () => {
    expect(APP_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
    expect(pageHtml()).not.toMatch(/<script>|\sstyle=|\son\w+=/);
  });

  it('R89: page, script and style load nothing from another origin', () => {
    for (const text of [pageHtml(), APP_CSS, APP_JS]) expect(text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)|src="\/\/|href="\/\/|@import|url\(/);
  });

  it('R87: on loopback without a token, a foreign Host is refused (DNS rebinding)', async () => {
    expect((await authed(`${base}api/sessions`, { host: 'evil.example:80' })).status).toBe(421);
    expect((await authed(`${base}api/sessions`, { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it('R82: bad query input is a 400 naming the field, and a page never exceeds the maximum', async () => {
    const bad = async (query: string) => JSON.parse((await authed(`${base}api/${query}`)).body) as { field?: string };
    expect((await authed(`${base}api/sessions?limit=0`)).status).toBe(400);
    expect((await bad('sessions?limit=0')).field).toBe('limit');
    expect((await bad(`sessions?limit=${MAX_PAGE + 1}`)).field).toBe('limit');
    expect((await bad('sessions?limit=1e3')).field).toBe('limit');
    expect((await bad('timeline?agent=main')).field).toBe('session');
    expect((await bad(`timeline?session=${encodeURIComponent('agent:main:a\u202eb')}&agent=main`)).field).toBe('session');
    expect((await bad(`timeline?session=${encodeURIComponent(TEAM.research)}`)).field).toBe('agent');
    expect((await bad('activity?minutes=99999')).field).toBe('minutes');
    expect((await bad('sessions?search=%00')).field).toBe('search');
    expect((await authed(`${base}api/timeline?session=agent:main:nobody&agent=main`)).status).toBe(404);
  });

  it('R81, R82: paging two rows at a time through the API walks every session and watcher-only key once, in order', async () => {
    const seen: string[] = [];
    let query = 'limit=2';
    for (let i = 0; i < 10; i++) {
      const page = JSON.parse((await authed(`${base}api/sessions?${query}`)).body) as { rows: { sessionKey: string }[]; next?: { sessionKey: string; agentId: string } };
      seen.push(...page.rows.map((r) => r.sessionKey));
      if (!page.next) break;
      query = `limit=2&afterKey=${encodeURIComponent(page.next.sessionKey)}${page.next.agentId ? `&afterAgent=${encodeURIComponent(page.next.agentId)}` : ''}`;
    }
    const keys = [TEAM.archive, TEAM.research, TEAM.writer, TEAM.hostile, 'agent:main:coordinator', TEAM.manager, TEAM.ops];
    expect(seen).toEqual(keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });

  it('R86: the change token is polled only while a page listens; another handle\'s commit is pushed as "changed" and a new notice as "notice"', async () => {
    const counted = counting(source);
    const live = await startUiServer({ source: counted, pollMs: 20 });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(counted.tokenReads).toBe(0);
      const frames: string[] = [];
      const req = request(`${live.base}api/live`, { headers: { authorization: `Bearer ${live.token}` } }, (res) => res.setEncoding('utf8').on('data', (d: string) => frames.push(d)));
      req.end();
      await expect.poll(() => frames.join('').includes('event: hello')).toBe(true);
      // Wait until the feed's first read has reported what was already pending (R61).
      await expect.poll(() => frames.join('').includes('agent:main:coordinator')).toBe(true);
      await expect.poll(() => counted.tokenReads).toBeGreaterThan(0);
      frames.length = 0;
      const writer = createSqliteStore({ path: db });
      try {
        writer.record({ sessionKey: 'agent:main:fresh', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a new person', watchers: ['agent:main:lead'] });
      } finally {
        writer.close();
      }
      await expect.poll(() => frames.join(''), { timeout: 10_000 }).toMatch(/event: changed/);
      await expect.poll(() => frames.join(''), { timeout: 10_000 }).toContain('event: notice\ndata: {"watcherSessionKey":"agent:main:lead"}');
      req.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const after = counted.tokenReads;
      await new Promise((r) => setTimeout(r, 200));
      expect(counted.tokenReads).toBe(after);
    } finally {
      await live.close();
    }
  });
});

describe('R87: a token on every request, on every address', () => {
  it('on loopback too: a request without the token reads nothing (401); the token is random and printed in the address', async () => {
    const db = join(dir, 'loopback.db');
    buildTeam(db);
    const source = SqliteUiSource.open(db);
    const a = await startUiServer({ source });
    const b = await startUiServer({ source });
    try {
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
      expect(a.url).toBe(`http://127.0.0.1:${a.port}/?token=${a.token}`);
      expect(a.token).not.toBe(b.token);
      const paths = ['', 'app.js', 'app.css', 'api/info', 'api/sessions', 'api/watches?pending=1', `api/timeline?session=${encodeURIComponent(TEAM.research)}&agent=main`, 'api/activity', 'api/live'];
      for (const path of paths) {
        for (const headers of [{}, { authorization: `Bearer ${b.token}` }, { cookie: `${tokenCookieName(a.port)}=${b.token}` }] as Record<string, string>[]) {
          const r = await get(`${a.base}${path}`, headers);
          expect(r.status, path).toBe(401);
          expect(r.body, path).not.toMatch(/agent:main|watcherSessionKey|<script/);
        }
      }
      expect((await get(`${a.base}api/sessions`, { authorization: `Bearer ${a.token}` })).status).toBe(200);
      // DNS rebinding: on loopback a foreign Host is refused even with the token.
      expect((await get(`${a.base}api/sessions`, { authorization: `Bearer ${a.token}`, host: 'evil.example' })).status).toBe(421);
    } finally {
      await a.close();
      await b.close();
      await source.close();
    }
  });

  it('off loopback: answers only requests that carry the token', async () => {
    const db = join(dir, 'token.db');
    buildTeam(db);
    const source = SqliteUiSource.open(db);
    try {
      const made = await startUiServer({ source, host: '0.0.0.0' });
      expect(made.url).toMatch(/\?token=[A-Za-z0-9_-]{32}$/);
      await made.close();
      await expect(startUiServer({ source, host: '0.0.0.0', token: 'short' })).rejects.toThrow(/16 to 200 characters/);
      const token = 'a-token-of-twenty-chars';
      const server = await startUiServer({ source, host: '0.0.0.0', token });
      try {
        const base = `http://127.0.0.1:${server.port}${APP_PATH}`;
        expect(server.url).toContain(`?token=${token}`);
        expect((await get(`${base}api/sessions`)).status).toBe(401);
        expect((await get(`${base}api/sessions?token=wrong-token-of-twenty`)).status).toBe(401);
        expect((await get(`${base}api/sessions`, { authorization: `Bearer ${token}` })).status).toBe(200);
        const first = await get(`${base}?token=${token}`);
        expect(first.status).toBe(303);
        const cookie = String(first.headers['set-cookie']).split(';')[0]!;
        expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
        expect((await get(`${base}api/sessions`, { cookie })).status).toBe(200);
        // With a token the Host check is not needed: the token is the guard.
        expect((await get(`${base}api/sessions`, { cookie, host: 'team.example' })).status).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      await source.close();
    }
  });

  it('the token cookie is named after the port and sent only under the view\'s path', async () => {
    const db = join(dir, 'scope.db');
    buildTeam(db);
    const source = SqliteUiSource.open(db);
    const server = await startUiServer({ source });
    try {
      const origin = `http://127.0.0.1:${server.port}`;
      const page = await get(`${origin}${APP_PATH}?token=${server.token}`);
      const setCookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []);
      expect(setCookie).toEqual([`ssk_ui_token_${server.port}=${server.token}; HttpOnly; SameSite=Strict; Path=${APP_PATH}`]);
      expect(APP_PATH).not.toBe('/');
      expect((await get(`${server.base}api/sessions`, { cookie: `ssk_ui_token_${server.port}=${server.token}` })).status).toBe(200);
      // Another port's name, or the bare name, is not this view's cookie.
      for (const cookie of [`ssk_ui_token=${server.token}`, `ssk_ui_token_${server.port + 1}=${server.token}`]) {
        expect((await get(`${server.base}api/sessions`, { cookie })).status, cookie).toBe(401);
      }
      // The page and all it loads live under that path: the root sends the browser there.
      const root = await get(`${origin}/`, { authorization: `Bearer ${server.token}` });
      expect(root.status).toBe(303);
      expect(root.headers['location']).toBe(APP_PATH);
      expect(pageHtml()).toMatch(/href="favicon\.ico"/);
      for (const path of ['app.js', 'app.css', 'favicon.ico', 'api/info']) expect((await get(`${server.base}${path}`, { authorization: `Bearer ${server.token}` })).status, path).toBeLessThan(300);
    } finally {
      await server.close();
      await source.close();
    }
  });

  it('?token= is traded for the cookie and a 303 to the same address without it', async () => {
    const db = join(dir, 'trade.db');
    buildTeam(db);
    const source = SqliteUiSource.open(db);
    const server = await startUiServer({ source });
    try {
      const origin = `http://127.0.0.1:${server.port}`;
      const cases: [string, string][] = [
        [`/?token=${server.token}`, APP_PATH],
        [`${APP_PATH}?token=${server.token}`, APP_PATH],
        [`${APP_PATH}api/sessions?limit=2&token=${server.token}&search=main`, `${APP_PATH}api/sessions?limit=2&search=main`],
        // Never elsewhere: a path a browser would read as another host goes to the page.
        [`/\\evil.example/x?token=${server.token}`, APP_PATH],
        [`//evil.example/x?token=${server.token}`, APP_PATH],
      ];
      for (const [path, location] of cases) {
        const r = await get(`${origin}${path}`);
        expect(r.status, path).toBe(303);
        expect(r.headers['location'], path).toBe(location);
        expect(String(r.headers['set-cookie']), path).toMatch(new RegExp(`^ssk_ui_token_${server.port}=${server.token};`));
        expect(r.body, path).toBe('');
      }
      // A wrong token is refused, with no cookie and no redirect.
      const wrong = await get(`${origin}/?token=not-the-token-of-this-view`);
      expect(wrong.status).toBe(401);
      expect(wrong.headers['set-cookie']).toBeUndefined();
      expect(wrong.headers['location']).toBeUndefined();
    } finally {
      await server.close();
      await source.close();
    }
  });

  it('a malformed token cookie is a 401 and logs nothing', async () => {
    const db = join(dir, 'cookie.db');
    buildTeam(db);
    const source = SqliteUiSource.open(db);
    const logger = memoryLogger();
    const token = 'a-token-of-twenty-chars';
    const server = await startUiServer({ source, host: '0.0.0.0', token, logger });
    try {
      const base = `http://127.0.0.1:${server.port}${APP_PATH}`;
      const name = tokenCookieName(server.port);
      // Bad percent-encoding, an empty value, a value with spaces, the name twice.
      for (const cookie of [`${name}=%E0%A4%A`, `${name}=%`, `${name}=`, `${name}=a b`, `${name}=%zz; ${name}=%E0`]) {
        expect((await get(`${base}api/sessions`, { cookie })).status, cookie).toBe(401);
      }
      expect(logger.entries).toEqual([]);
    } finally {
      await server.close();
      await source.close();
    }
  });

  it('the CLI makes a token on loopback and on --host 0.0.0.0 and prints it in the address; bad flags are usage errors', async () => {
    const db = join(dir, 'cli.db');
    buildTeam(db);
    const local = await startUi(cli.path(), ['--db', db]);
    try {
      expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
      expect((await get(`${local.base}api/sessions`)).status).toBe(401);
      expect((await get(`${local.base}api/sessions`, local.auth)).status).toBe(200);
    } finally {
      expect(await local.stop()).toBe(0);
    }
    const ui = await startUi(cli.path(), ['--db', db, '--host', '0.0.0.0']);
    try {
      expect(ui.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
      const port = /:(\d+)\//.exec(ui.url)![1];
      expect((await get(`http://127.0.0.1:${port}${APP_PATH}api/info`)).status).toBe(401);
      expect((await get(`http://127.0.0.1:${port}${APP_PATH}api/info`, ui.auth)).status).toBe(200);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
    // Stopped the moment its address is printed, it still stops cleanly (SIGTERM is handled by then).
    for (let i = 0; i < 5; i++) expect(await (await startUi(cli.path(), ['--db', db])).stop()).toBe(0);
    expect((await runCli(cli.path(), ['ui'])).code).toBe(2);
    expect((await runCli(cli.path(), ['ui', '--db', db, '--token', 'short'])).code).toBe(2);
    expect((await runCli(cli.path(), ['ui', '--db', join(dir, 'missing.db')])).code).toBe(3);
    expect((await runCli(cli.path(), ['ui', '--help'])).stdout).toContain('session-state-kit ui --db <file>');
  });
});

describe('R87: the token comes from a file or the environment, not the command line', () => {
  const token = 'TokenFromAFileOrEnv_0123';
  const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');

  it('--token-file and SSK_UI_TOKEN set the token, which no other user can read off the command line', async () => {
    const db = join(dir, 'token-file.db');
    buildTeam(db);
    const file = join(dir, 'ui.token');
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o600);
    for (const [args, env] of [[['--token-file', file], {}], [[], { SSK_UI_TOKEN: token }]] as [string[], Record<string, string>][]) {
      const ui = await startUi(cli.path(), ['--db', db, ...args], { env });
      try {
        expect(ui.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/\\?token=${token}$`));
        expect((await get(`${ui.base}api/info`, { authorization: `Bearer ${token}` })).status).toBe(200);
        if (existsSync(`/proc/${ui.pid}/cmdline`)) expect(cmdline(ui.pid)).not.toContain(token);
        expect(ui.stderr()).toBe('');
      } finally {
        expect(await ui.stop()).toBe(0);
      }
    }
  });

  it('--token still works, with a warning on stderr; a file others can read is warned about; bad or doubled input is a usage error', async () => {
    const db = join(dir, 'token-flag.db');
    buildTeam(db);
    const ui = await startUi(cli.path(), ['--db', db, '--token', token]);
    try {
      expect(ui.url).toContain(`?token=${token}`);
      await expect.poll(() => ui.stderr()).toMatch(/warning: --token is visible to every local user .*--token-file <path> or SSK_UI_TOKEN/);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
    const open = join(dir, 'open.token');
    writeFileSync(open, token);
    chmodSync(open, 0o644);
    const shared = await startUi(cli.path(), ['--db', db, '--token-file', open]);
    try {
      await expect.poll(() => shared.stderr()).toContain(`warning: ${open} can be read by other users`);
    } finally {
      expect(await shared.stop()).toBe(0);
    }
    const bad = join(dir, 'bad.token');
    writeFileSync(bad, 'short\n', { mode: 0o600 });
    for (const args of [['--token-file', join(dir, 'missing.token')], ['--token-file', bad], ['--token-file', open, '--token', token]]) {
      const r = await runCli(cli.path(), ['ui', '--db', db, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/--token-file|one way/);
    }
    const help = (await runCli(cli.path(), ['ui', '--help'])).stdout;
    expect(help).toContain('--token-file <path>');
    expect(help).toContain('SSK_UI_TOKEN');
    expect(help).toMatch(/\/proc\/<pid>\/cmdline/);
  });
});

describe('R81: the demo\'s state file', () => {
  it('shows the manager (watcher only) and its child with the pending notice inspect prints', async () => {
    const db = join(dir, 'demo.db');
    expect((await runCli(cli.path(), ['demo', '--db', db])).code).toBe(0);
    const ui = await startUi(cli.path(), ['--db', db]);
    try {
      const sessions = JSON.parse((await get(`${ui.base}api/sessions`, ui.auth)).body) as { rows: { sessionKey: string; watcherOnly?: boolean }[] };
      expect(sessions.rows.map((r) => [r.sessionKey, r.watcherOnly === true])).toEqual([
        ['agent:main:main', true],
        ['agent:main:subagent:research', false],
      ]);
      const watches = JSON.parse((await get(`${ui.base}api/watches?pending=1`, ui.auth)).body) as { rows: { noticeText: string }[] };
      const inspected = JSON.parse((await runCli(cli.path(), ['inspect', db, 'notices', 'agent:main:main', '--json'])).stdout) as { text: string }[];
      expect(watches.rows.map((c) => c.noticeText)).toEqual(inspected.map((n) => n.text));
      expect(inspected).toHaveLength(1);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
  });
});

describe('R82: 10k sessions and 1M events, one page at a time', () => {
  const db = join(dir, 'scale.db');
  const SESSIONS = 10_000;
  const PER_SESSION = 100;
  let source: SqliteUiSource;
  beforeAll(() => {
    createSqliteStore({ path: db }).close();
    // Rows written directly (a store would take minutes): the same tables and indexes the store uses.
    const raw = new Database(db);
    const event = raw.prepare(
      "INSERT INTO session_state_events (sequence, session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, ?, 'main', 'agent_message', 'agent', ?, ?, 'work')",
    );
    const head = raw.prepare("INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES (?, 'main', ?, 0, ?)");
    const cursor = raw.prepare(
      "INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) VALUES ('agent:main:main', ?, 'main', ?, ?, ?, 'spawn', 0)",
    );
    raw.transaction(() => {
      let seq = 0;
      for (let s = 0; s < SESSIONS; s++) {
        const key = `agent:main:s${String(s).padStart(5, '0')}`;
        for (let e = 0; e < PER_SESSION; e++) {
          seq++;
          event.run(seq, key, 1e12 + seq * 1000, 1e12 + seq * 1000);
        }
        head.run(key, seq, 1e12 + seq * 1000);
        cursor.run(key, seq - 1, s % 2 === 0 ? seq : seq - 1, seq);
      }
    })();
    raw.close();
    source = SqliteUiSource.open(db);
  }, 300_000);
  afterAll(() => source?.close());

  it('the sessions page walks the heads\' primary key, filtered or not, and never sorts', async () => {
    for (const q of [{ limit: 50 }, { limit: 50, search: 's0999' }, { limit: 50, agent: 'main', after: { sessionKey: 'agent:main:s05000', agentId: 'main' } }]) {
      const plan = source.plan(sessionsSql(q), ...sessionsParams(q));
      expect(plan.join('\n')).toMatch(/SEARCH session_state_heads USING PRIMARY KEY/);
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|SCAN/);
    }
    // The keys that only watch come from a skip scan of the watcher index: one seek per distinct key.
    expect(source.plan(NEXT_WATCHER_SQL, '').join('\n')).toMatch(/SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_watcher \(watcher_session_key>\?\)/);
    const first = await source.sessions({ limit: 50 });
    expect(first.rows).toHaveLength(50);
    // agent:main:main watches all 10k sessions and recorded nothing: one row, in key order.
    expect(first.rows[0]).toEqual({ sessionKey: 'agent:main:main', agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true });
    expect(first.rows.filter((r) => r.watcherOnly)).toHaveLength(1);
    expect(first.next).toEqual({ sessionKey: 'agent:main:s00048', agentId: 'main' });
    expect((await source.sessions({ limit: 50, agent: 'main' })).rows.some((r) => r.watcherOnly)).toBe(false);
    expect((await source.sessions({ limit: 50, search: 'MAIN:MAIN' })).rows.map((r) => r.sessionKey)).toEqual(['agent:main:main']);
    const second = await source.sessions({ limit: 50, after: { sessionKey: 'agent:main:s00049', agentId: 'main' } });
    expect(second.rows[0]!.sessionKey).toBe('agent:main:s00050');
    expect(second.rows[0]).toMatchObject({ stateVersion: 5100, earliestAvailableSequence: 5001, lastActorType: 'agent' });
    const last = await source.sessions({ limit: 50, after: { sessionKey: 'agent:main:s09989', agentId: 'main' } });
    expect(last.rows).toHaveLength(10);
    expect(last.next).toBeUndefined();
  });

  it('a timeline page reads the identity index, newest first, and pages by sequence', async () => {
    const plan = source.plan(UI_SQL.timeline, 'main', 'agent:main:s00001', Number.MAX_SAFE_INTEGER, 51).join('\n');
    expect(plan).toMatch(/USING INDEX session_state_events_identity/);
    expect(plan).not.toMatch(/TEMP B-TREE|SCAN/);
    expect(source.plan(UI_SQL.lowest, 'main', 'x').join('\n')).toMatch(/COVERING INDEX session_state_events_identity/);
    const t = await source.timeline({ sessionKey: 'agent:main:s00001', agentId: 'main', limit: 40 });
    expect(t.events.map((e) => e.sequence)).toEqual(Array.from({ length: 40 }, (_, i) => 200 - i));
    expect(t.next).toBe(161);
    const end = await source.timeline({ sessionKey: 'agent:main:s00001', agentId: 'main', limit: 40, before: 121 });
    expect(end.events).toHaveLength(20);
    expect(end.next).toBeUndefined();
    expect(end.gap).toBeUndefined();
  });

  it('R84: a cursor page walks the cursors\' primary key; pending ones carry the notice text', async () => {
    const plan = source.plan(watchesSql('session_watch_cursors_effective', {}), '', '', '', 51).join('\n');
    expect(plan).toMatch(/SEARCH c USING PRIMARY KEY/);
    expect(plan).not.toMatch(/TEMP B-TREE|SCAN/);
    const page = await source.watches({ limit: 10 });
    expect(page.rows).toHaveLength(10);
    expect(page.rows.filter((c) => c.pending).map((c) => c.noticeText)).toEqual(
      page.rows.filter((_, i) => i % 2 === 0).map((c) => `Session "${c.targetSessionKey}" changed (other actor). Reconcile before acting: session_status sessionKey "${c.targetSessionKey}" changesSince ${c.lastSeenSequence}.`),
    );
    const one = await source.watches({ limit: 10, session: 'agent:main:s00002' });
    expect(one.rows.map((c) => c.targetSessionKey)).toEqual(['agent:main:s00002']);
  });

  it('R85: the activity read uses the time index', () => {
    expect(source.plan(UI_SQL.activity, 0, 1).join('\n')).toMatch(/USING INDEX session_state_events_occurred/);
    expect(source.plan(UI_SQL.newest).join('\n')).toMatch(/session_state_events_occurred/);
  });
});
