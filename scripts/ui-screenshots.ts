/**
 * `npm run ui:screenshots`: writes the live view's main views to docs/images/ui-*.png, from the
 * test team (test/ui/team.ts) at a fixed time, served by the real server and shot in Debian's
 * Chromium (as the browser tests drive it).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteUiSource } from '../src/ui/sqlite-source.js';
import { startUiServer } from '../src/ui/server.js';
import { launchBrowser } from '../test/ui/browser.js';
import { TEAM, buildTeam } from '../test/ui/team.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'images');
const dir = join(tmpdir(), 'ssk-ui-screenshots');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
mkdirSync(out, { recursive: true });
const db = join(dir, 'team.db');
buildTeam(db, Date.UTC(2026, 0, 15, 10, 0, 0));

const source = SqliteUiSource.open(db);
const server = await startUiServer({ source });
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const views: [string, string][] = [
    ['ui-sessions.png', ''],
    ['ui-timeline.png', `#/session?key=${encodeURIComponent(TEAM.research)}&agent=main`],
    ['ui-gap.png', `#/session?key=${encodeURIComponent(TEAM.archive)}&agent=main`],
    ['ui-watches.png', '#/watches'],
    ['ui-activity.png', '#/activity?minutes=60'],
  ];
  for (const [file, hash] of views) {
    await page.goto(`${server.url}${hash}`);
    for (let i = 0; i < 100 && (await page.locator('main').getAttribute('data-route')) !== hash; i++) await page.waitForTimeout(50);
    await page.locator('[data-testid=live]').filter({ hasText: 'live' }).waitFor();
    await page.locator('.toast').evaluateAll((els) => els.forEach((e) => e.remove()));
    await page.screenshot({ path: join(out, file), fullPage: true });
    console.log(`wrote docs/images/${file}`);
  }
} finally {
  await browser.close();
  await server.close();
  await source.close();
  rmSync(dir, { recursive: true, force: true });
}
