/**
 * The live view in a real browser (PROTOCOL.md section 13): `session-state-kit ui` runs as its own
 * OS process on a real SQLite file, Debian's Chromium (playwright-core) drives the page, and other
 * OS processes write to the file while the page is open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noticeText } from '../../src/core/index.js';
import { fingerprint, runCli, useBuiltCli } from '../cli/helpers.js';
import { act, hasChromium, launchBrowser, startUi, type UiProcess } from './browser.js';
import { TEAM, buildTeam } from './team.js';

const cli = useBuiltCli();
let dir = '';
let db = '';
let ui: UiProcess;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-ui-'));
  db = join(dir, 'team.db');
  buildTeam(db);
  ui = await startUi(cli.path(), ['--db', db, '--port', '0', '--poll-ms', '100']);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  // A CSP violation or a script error is a failure of the page, whatever the test checks.
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Goes to a view and waits until the page has rendered that view (a hash change alone loads nothing). */
async function open(hash: string): Promise<void> {
  await page.goto(`${ui.url}${hash}`);
  await expect.poll(() => page.locator('main').getAttribute('data-route')).toBe(hash);
}

const texts = (selector: string) => page.locator(selector).allTextContents();

describe.skipIf(!hasChromium)('session-state-kit ui in Chromium', () => {
  it('R81: lists every session with its head, last actor and retained history, and opens its timeline', async () => {
    await open('');
    // Sessions with events, and the coordinator, which only watches (R81).
    expect(await texts('[data-testid=session-link]')).toEqual([TEAM.archive, TEAM.research, TEAM.writer, TEAM.hostile, 'agent:main:coordinator', TEAM.manager, TEAM.ops].sort());
    expect(await page.locator('[data-testid=session-row]', { hasText: 'agent:main:coordinator' }).textContent()).toContain('watches only');
    await page.getByText('agent:main:coordinator', { exact: true }).click();
    await expect.poll(() => page.locator('[data-testid=session-title]').textContent()).toBe('agent:main:coordinator');
    expect(await texts('[data-testid=notice-text]')).toEqual([noticeText(TEAM.hostile, 0)]);
    await open('');
    const inspect = await runCli(cli.path(), ['inspect', db, 'heads', '--json']);
    const heads = JSON.parse(inspect.stdout) as { sessionKey: string; stateVersion: number }[];
    const research = heads.find((h) => h.sessionKey === TEAM.research)!;
    await page.getByText(TEAM.research, { exact: true }).click();
    await page.waitForSelector('[data-testid=timeline]');
    expect(await page.locator('[data-testid=session-title]').textContent()).toBe(TEAM.research);
    expect(Number(await page.locator('[data-testid=head-version]').textContent())).toBe(research.stateVersion);
    const rows = page.locator('[data-testid=event-row]');
    // Newest first, the person's turns on top, each actor in its own colour class.
    expect(await rows.first().locator('[data-testid=summary]').textContent()).toBe('goal updated');
    expect(await rows.first().locator('.chip.human').count()).toBe(1);
    expect(await page.locator('[data-testid=event-row] .chip.agent').count()).toBeGreaterThan(0);
    // Evaluated in the page (a string: the test's own types have no DOM).
    const colours = (await page.evaluate(`['human', 'agent', 'system'].map((c) => {
      const el = document.createElement('span');
      el.className = 'chip ' + c;
      document.body.appendChild(el);
      const colour = getComputedStyle(el).backgroundColor;
      el.remove();
      return colour;
    })`)) as string[];
    expect(new Set(colours).size).toBe(3);
  });

  it('R83: a session whose history was pruned shows the gap as a row of its own', async () => {
    await open(`#/session?key=${encodeURIComponent(TEAM.archive)}&agent=main`);
    const gap = page.locator('[data-testid=history-gap]');
    expect(await gap.count()).toBe(1);
    expect(await gap.textContent()).toContain('events up to #4 were pruned');
    // The gap sits below the oldest retained event.
    expect(await page.locator('[data-testid=timeline] tbody tr').last().getAttribute('data-testid')).toBe('history-gap');
  });

  it('R84: each pending notice shows the exact text inspect prints, and its link opens the target', async () => {
    await open('#/watches?pending=1');
    const shown = await texts('[data-testid=notice-text]');
    const expected: string[] = [];
    for (const watcher of ['agent:main:coordinator', TEAM.manager, TEAM.ops]) {
      const r = await runCli(cli.path(), ['inspect', db, 'notices', watcher, '--json']);
      expected.push(...(JSON.parse(r.stdout) as { text: string }[]).map((n) => n.text));
    }
    expect(shown.sort()).toEqual(expected.sort());
    expect(shown).toContain(noticeText(TEAM.hostile, 0));
    // Provenance and lane: the ambient watch wakes on its next turn (R25).
    const ambient = page.locator('[data-testid=cursor-row]', { has: page.locator('.chip.ambient') });
    expect(await ambient.locator('.chip.lane').textContent()).toBe('next-turn');
    expect(await page.locator('[data-testid=graph] path').count()).toBe(await page.locator('[data-testid=cursor-row]').count());
    const row = page.locator('[data-testid=cursor-row]', { has: page.locator(`[data-testid=watcher-link]:text-is("${TEAM.manager}")`) }).filter({ hasText: TEAM.writer });
    await row.locator('[data-testid=notice-target]').click();
    await page.waitForSelector('[data-testid=timeline]');
    expect(await page.locator('[data-testid=session-title]').textContent()).toBe(TEAM.writer);
  });

  it('R81: the filter narrows the list on the server, by key or by agent', async () => {
    await open('');
    await page.fill('[data-testid=filter]', 'WRITER');
    await page.press('[data-testid=filter]', 'Enter');
    await expect.poll(() => page.locator('[data-testid=session-row]').count()).toBe(1);
    expect(await texts('[data-testid=session-link]')).toEqual([TEAM.writer]);
    await open('#/sessions?agent=ops');
    expect(await texts('[data-testid=session-link]')).toEqual([TEAM.ops]);
    await open('#/sessions?search=no-such-session');
    expect(await page.locator('[data-testid=session-row]').count()).toBe(0);
  });

  it('R88: a hostile key and summary render as text, never as markup', async () => {
    await open(`#/session?key=${encodeURIComponent(TEAM.hostile)}&agent=main`);
    expect(await page.locator('[data-testid=session-title]').textContent()).toBe(TEAM.hostile);
    expect(await page.locator('[data-testid=summary]').first().textContent()).toBe(TEAM.hostileSummary);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await open('#/watches');
    expect(await texts('[data-testid=target-link]')).toContain(TEAM.hostile);
    expect(await page.locator('main img, main script').count()).toBe(0);
  });

  it('R86: a human turn recorded by another process appears without a reload, and so does the ack', async () => {
    await open(`#/session?key=${encodeURIComponent(TEAM.research)}&agent=main`);
    await page.evaluate('window.__sameDocument = true');
    await expect.poll(() => page.locator('[data-testid=live]').getAttribute('class')).toBe('live on');
    const before = await page.locator('[data-testid=event-row]').count();
    const { sequence } = act(db, 'record', TEAM.research, TEAM.manager) as { sequence: number };
    // No waitForFunction: polling a string predicate needs eval, which the page's CSP forbids (R88).
    await expect.poll(() => page.locator('[data-testid=event-row] td').first().textContent(), { timeout: 15_000 }).toBe(String(sequence));
    expect(await page.locator('[data-testid=event-row]').first().locator('[data-testid=summary]').textContent()).toBe('human message from another process');
    expect(await page.locator('[data-testid=event-row]').count()).toBe(before + 1);
    expect(Number(await page.locator('[data-testid=head-version]').textContent())).toBe(sequence);

    // The manager takes its turn in another process: its notices are acked, the page shows them settled.
    await page.getByTestId('tab-watches').click();
    await page.waitForSelector('[data-testid=graph]');
    const pendingOfManager = () =>
      page.locator('[data-testid=cursor-row]', { has: page.locator(`[data-testid=watcher-link]:text-is("${TEAM.manager}")`) }).locator('[data-testid=notice-text]').count();
    expect(await pendingOfManager()).toBe(2);
    act(db, 'drain', TEAM.manager);
    await expect.poll(pendingOfManager, { timeout: 15_000 }).toBe(0);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
  });

  it('R86: a live refresh keeps what the person is typing in the filter', async () => {
    await open('');
    await expect.poll(() => page.locator('[data-testid=live]').getAttribute('class')).toBe('live on');
    await page.locator('[data-testid=filter]').pressSequentially('resea');
    const rendered = Number(await page.locator('main').getAttribute('data-rendered'));
    act(db, 'record', TEAM.writer);
    await expect.poll(async () => Number(await page.locator('main').getAttribute('data-rendered')), { timeout: 15_000 }).toBeGreaterThan(rendered);
    expect(await page.locator('[data-testid=filter]').inputValue()).toBe('resea');
    await page.keyboard.type('rch');
    expect(await page.locator('[data-testid=filter]').inputValue()).toBe('research');
  });

  it('R85: the activity chart counts events per minute by actor', async () => {
    await open('#/activity?minutes=60');
    const legend = await texts('[data-testid=activity-legend] > span');
    const count = (actor: string) => Number(/(\d+) events/.exec(legend.find((l) => l.startsWith(actor)) ?? '')?.[1]);
    const stats = JSON.parse((await runCli(cli.path(), ['inspect', db, 'stats', '--json'])).stdout) as { rows: number };
    // Everything but the archive's pruned-era events falls in the last hour.
    expect(count('human') + count('agent') + count('system')).toBe(stats.rows);
    expect(count('human')).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=activity] rect[data-actor=system]').count()).toBeGreaterThan(0);
  });

  it('R81: a route named after an Object property (#/constructor, #/__proto__) shows the sessions list, without a script error', async () => {
    for (const hash of ['#/constructor', '#/toString', '#/hasOwnProperty']) {
      await open(hash);
      expect(await page.locator('[data-testid=tab-sessions]').getAttribute('class'), hash).toBe('active');
      expect(await page.locator('main table').count(), hash).toBeGreaterThan(0);
    }
    expect(problems).toEqual([]);
  });

  it('R87: the printed address trades its token for the cookie: the address bar and history keep the address without it', async () => {
    await page.goto(`${ui.url}#/watches`);
    await expect.poll(() => page.locator('main').getAttribute('data-route')).toBe('#/watches');
    expect(page.url()).toBe(`${new URL(ui.url).origin}/ssk-ui/#/watches`);
    const entries = (await page.evaluate('performance.getEntriesByType("navigation").map((e) => e.name)')) as string[];
    expect(entries.join(' ')).not.toContain('token=');
    // A reload keeps working on the cookie alone.
    await page.reload();
    await expect.poll(() => page.locator('main').getAttribute('data-route')).toBe('#/watches');
    expect(await page.locator('[data-testid=cursor-row]').count()).toBeGreaterThan(0);
  });

  it('R87: the token cookie stays with the view: another service on the same host is not sent it', async () => {
    await open('');
    const port = new URL(ui.url).port;
    const cookies = (await browser.context.cookies()).filter((c) => c.name.startsWith('ssk_ui_token'));
    expect(cookies.map((c) => [c.name, c.domain, c.path, c.httpOnly, c.sameSite])).toEqual([[`ssk_ui_token_${port}`, '127.0.0.1', '/ssk-ui/', true, 'Strict']]);
    // Another web service on 127.0.0.1, another port: what Cookie header does the browser send it?
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.cookie ?? ''}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('another service');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const otherPage = await browser.context.newPage();
      for (const path of ['/', '/api/sessions', '/ssk-ui']) await otherPage.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}${path}`);
      await otherPage.close();
    } finally {
      other.closeAllConnections();
      await new Promise((r) => other.close(r));
    }
    expect(seen.filter((r) => !r.startsWith('/favicon.ico')).map((r) => r.split(' ')[0])).toEqual(['/', '/api/sessions', '/ssk-ui']);
    expect(seen.join(';')).not.toContain('ssk_ui_token');
  });

  it('R80, R88: the page ran without a script error or CSP report, and the file was never written by ui', async () => {
    expect(problems).toEqual([]);
    const before = fingerprint(db);
    await open('#/watches');
    await open('');
    expect(fingerprint(db)).toEqual(before);
  });
});
