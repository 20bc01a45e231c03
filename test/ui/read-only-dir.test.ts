/**
 * R80: a viewer who may read the state file but not write its directory. SQLite cannot read a
 * WAL-mode file without its -shm, which such a viewer cannot create; with no writer around (no
 * -wal), the view opens the file immutable and reopens it when the file changes, and once a
 * writer's -wal and -shm exist it reads through them. The viewer is a real other user: as root,
 * `ui` runs as nobody (65534), for whom chmod means what it says; otherwise the directory is made
 * read-only for ourselves.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { useBuiltCli } from '../cli/helpers.js';
import { act, startUi, type UiProcess } from './browser.js';
import { TEAM, buildTeam } from './team.js';

const cli = useBuiltCli();
const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-rodir-'));
afterAll(() => {
  chmodSync(join(dir, 'ro'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function api(ui: UiProcess, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${ui.base}${path}`, { headers: ui.auth }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const headOf = async (ui: UiProcess) =>
  (JSON.parse((await api(ui, `api/timeline?session=${encodeURIComponent(TEAM.research)}&agent=main&limit=1`)).body) as { head: { stateVersion: number } }).head.stateVersion;

describe.skipIf(process.platform === 'win32')('R80: a viewer who may read the file but not write its directory', () => {
  it('serves the file with no writer around, and follows commits by a passing writer and by one that stays', async () => {
    chmodSync(dir, 0o755);
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    const db = join(ro, 'team.db');
    buildTeam(db);
    expect(existsSync(`${db}-wal`)).toBe(false);
    chmodSync(db, 0o644);
    // Root: the directory stays writable for us (the writers below) and is not for nobody.
    chmodSync(ro, asRoot ? 0o755 : 0o555);
    const ui = await startUi(cli.path(), ['--db', db, '--poll-ms', '50'], asRoot ? { uid: NOBODY, gid: NOBODY } : {});
    try {
      const sessions = await api(ui, 'api/sessions');
      expect(sessions.status).toBe(200);
      expect(sessions.body).toContain(TEAM.research);
      const before = await headOf(ui);
      if (!asRoot) {
        console.warn('read-only-dir: not root, so no writer can write the read-only directory either; the live half of this test is skipped');
        return;
      }
      // A page listening (R86): it must be told of the commit, though an immutable connection's data_version never moves.
      let live = '';
      const stream = request(`${ui.base}api/live`, { headers: ui.auth }, (res) => res.setEncoding('utf8').on('data', (d: string) => (live += d)));
      stream.end();
      await expect.poll(() => live).toContain('event: hello');
      // A writer that comes and goes (another OS process).
      const { sequence } = act(db, 'record', TEAM.research, TEAM.manager) as { sequence: number };
      expect(sequence).toBeGreaterThan(before);
      await expect.poll(() => headOf(ui), { timeout: 15_000 }).toBe(sequence);
      await expect.poll(() => live, { timeout: 15_000 }).toContain('event: changed');
      stream.destroy();
      // A writer that stays: its -wal and -shm exist while it runs.
      const writer = createSqliteStore({ path: db });
      try {
        const second = writer.record({ sessionKey: TEAM.research, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'from a writer that stays' });
        expect(existsSync(`${db}-wal`)).toBe(true);
        await expect.poll(() => headOf(ui), { timeout: 15_000 }).toBe(second!.sequence);
      } finally {
        writer.close();
      }
      expect(ui.stderr()).toBe('');
    } finally {
      expect(await ui.stop()).toBe(0);
    }
  });
});
