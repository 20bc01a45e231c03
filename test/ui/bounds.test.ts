/**
 * R82: a page is bounded in bytes, not only in rows. Another program may write the file with SQL
 * and break R1/R3's limits (a 1 MiB summary, a 100 KiB key): the view shows such strings clipped
 * to those limits with a visible mark. And rows that keep to the limits but are large (astral
 * characters, every optional id at its longest) end a page early, which says there is more.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { noticeText } from '../../src/core/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { SqliteUiSource } from '../../src/ui/sqlite-source.js';
import { CLIP_MARK, SHOWN, clip, type CursorRowView, type EventView, type SessionRow } from '../../src/ui/source.js';

const dir = mkdtempSync(join(tmpdir(), 'ssk-ui-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function get(url: string, token: string): Promise<{ status: number; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: all.length, body: all.toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const points = (text: string) => [...text].length;
const clipped = (text: string | undefined, max: number) => text !== undefined && text.endsWith(CLIP_MARK) && points(text) === max + points(CLIP_MARK);

describe('R82: clip', () => {
  it('keeps text up to the limit in code points, and cuts longer text at a code point with the mark', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe(`abc${CLIP_MARK}`);
    // Astral characters count one each (R1), and are never split.
    expect(clip('😀😀😀', 3)).toBe('😀😀😀');
    expect(clip('😀😀😀😀', 3)).toBe(`😀😀😀${CLIP_MARK}`);
    expect(SHOWN).toMatchObject({ key: LIMITS.keyMaxLength, agentId: LIMITS.agentIdMaxLength, summary: LIMITS.summaryMaxLength });
  });
});

describe('R82: rows another program wrote past R1 and R3', () => {
  const db = join(dir, 'oversized.db');
  const BIG = 'agent:main:big';
  const LONG_KEY = `agent:main:${'k'.repeat(100 * 1024)}`;
  const MiB = 'm'.repeat(1024 * 1024);
  let source: SqliteUiSource;
  let server: UiServer;
  beforeAll(async () => {
    const store = createSqliteStore({ path: db });
    store.record({ sessionKey: BIG, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a normal event' });
    store.close();
    const raw = new Database(db);
    const event = raw.prepare(
      "INSERT INTO session_state_events (session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json, dedupe_key) VALUES (?, 'main', ?, 'human_direct_message', 'human', ?, ?, 1, 1, ?, ?, ?)",
    );
    raw.transaction(() => {
      for (let i = 0; i < 20; i++) {
        const id = `${'i'.repeat(100 * 1024)}${i}`;
        event.run(BIG, id, LONG_KEY, id, MiB, JSON.stringify({ channel: MiB }), id);
      }
      raw.prepare("UPDATE session_state_heads SET last_sequence = (SELECT max(sequence) FROM session_state_events) WHERE session_key = ?").run(BIG);
      raw.prepare("INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES (?, 'main', 0, 0, 1)").run(LONG_KEY);
      const cursor = raw.prepare(
        "INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) VALUES (?, ?, 'main', 0, 1, 1, 'explicit', 1)",
      );
      cursor.run(LONG_KEY, BIG);
      cursor.run('agent:main:watcher', LONG_KEY);
    })();
    raw.close();
    source = SqliteUiSource.open(db);
    server = await startUiServer({ source });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await source?.close();
  });

  it('a timeline of 20 events with 1 MiB summaries and payloads is a small answer, each string clipped with the mark', async () => {
    const r = await get(`${server.base}api/timeline?session=${BIG}&agent=main&limit=200`, server.token);
    expect(r.status).toBe(200);
    expect(r.bytes).toBeLessThan(256 * 1024);
    const t = JSON.parse(r.body) as { events: EventView[]; next?: number };
    expect(t.events).toHaveLength(21);
    expect(t.next).toBeUndefined();
    const [newest] = t.events;
    expect(clipped(newest!.summary, LIMITS.summaryMaxLength)).toBe(true);
    for (const id of [newest!.sessionId, newest!.runId, newest!.dedupeKey, newest!.actorId]) expect(clipped(id, LIMITS.keyMaxLength)).toBe(true);
    expect(newest!.payload).toBeUndefined();
    expect(clipped(newest!.payloadClipped, SHOWN.payload)).toBe(true);
    expect(newest!.payloadClipped!.startsWith('{"channel":"mmm')).toBe(true);
    // The event that keeps to the limits is shown as stored.
    expect(t.events[20]!.summary).toBe('a normal event');
  });

  it('sessions and watches show an oversized key clipped; a notice quoting a valid key keeps its exact text (R84)', async () => {
    const s = await get(`${server.base}api/sessions`, server.token);
    expect(s.bytes).toBeLessThan(64 * 1024);
    const sessions = (JSON.parse(s.body) as { rows: SessionRow[] }).rows;
    expect(sessions.map((row) => row.sessionKey)).toContain(BIG);
    expect(sessions.filter((row) => clipped(row.sessionKey, LIMITS.keyMaxLength))).toHaveLength(1);
    const w = await get(`${server.base}api/watches?pending=1`, server.token);
    expect(w.bytes).toBeLessThan(64 * 1024);
    const cursors = (JSON.parse(w.body) as { rows: CursorRowView[] }).rows;
    const ofBig = cursors.find((c) => c.targetSessionKey === BIG)!;
    expect(clipped(ofBig.watcherSessionKey, LIMITS.keyMaxLength)).toBe(true);
    expect(ofBig.noticeText).toBe(noticeText(BIG, 0));
    const ofLong = cursors.find((c) => c.watcherSessionKey === 'agent:main:watcher')!;
    expect(clipped(ofLong.targetSessionKey, LIMITS.keyMaxLength)).toBe(true);
    expect(clipped(ofLong.noticeText, SHOWN.notice)).toBe(true);
  });
});

describe('R82: a page stops at its byte budget and says there is more', () => {
  it('200 events at the longest R1 and R3 allow (astral, every id set) come in pages under the budget, each event once, newest first', async () => {
    const db = join(dir, 'wide.db');
    const wide = (n: number, tail = '') => '😀'.repeat(n - points(tail)) + tail;
    const sessionKey = `agent:main:${wide(LIMITS.keyMaxLength - 'agent:main:'.length)}`;
    const store = createSqliteStore({ path: db });
    store.recordMany(
      Array.from({ length: 200 }, (_, i) => ({
        sessionKey,
        agentId: 'main',
        kind: 'agent_message' as const,
        actorType: 'agent' as const,
        actorId: `agent:main:${wide(LIMITS.keyMaxLength - 'agent:main:'.length)}`,
        summary: wide(LIMITS.summaryMaxLength),
        sessionId: wide(LIMITS.keyMaxLength),
        runId: wide(LIMITS.keyMaxLength),
        dedupeKey: wide(LIMITS.keyMaxLength, String(i)),
      })),
    );
    store.close();
    const source = SqliteUiSource.open(db);
    const server = await startUiServer({ source });
    try {
      const seen: number[] = [];
      let before = '';
      let pages = 0;
      for (; pages < 20; pages++) {
        const r = await get(`${server.base}api/timeline?session=${encodeURIComponent(sessionKey)}&agent=main&limit=200${before}`, server.token);
        expect(r.status).toBe(200);
        // R82: the budget is 1 MiB of rows; the head and the frame add a few KiB.
        expect(r.bytes).toBeLessThanOrEqual(1024 * 1024 + 16 * 1024);
        const t = JSON.parse(r.body) as { events: EventView[]; next?: number; byteLimited?: true };
        expect(t.events.every((e) => !e.summary.endsWith(CLIP_MARK) && e.dedupeKey === wide(LIMITS.keyMaxLength, String(e.sequence - 1)))).toBe(true);
        seen.push(...t.events.map((e) => e.sequence));
        if (t.next === undefined) break;
        expect(t.events.length).toBeLessThan(200);
        expect(t.byteLimited).toBe(true);
        before = `&before=${t.next}`;
      }
      expect(pages).toBeGreaterThan(0);
      expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => 200 - i));
    } finally {
      await server.close();
      await source.close();
    }
  });
});
