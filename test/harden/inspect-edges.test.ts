/**
 * R1, R9d: inspect shows what a file holds, safely. Every cell escapes controls, format characters
 * (bidi incl. U+061C, zero-width, BOM) and separators, and integers past 2^53 are shown exactly
 * instead of failing the command. The rows are crafted with raw SQL: a store would refuse them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectCommand } from '../../src/cli/inspect.js';
import { printable } from '../../src/cli/table.js';
import { A, CHILD, COORD, human } from '../contract/harness.js';
import { openStore, tempDir } from '../sqlite/helpers.js';

const dir = tempDir('inspect-edges');

async function inspect(args: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await inspectCommand(args, { out: (l) => void out.push(l), err: () => {} });
  return { code, out };
}

describe('R1 R9d inspect on a file the store did not write', () => {
  it('R1: every cell escapes control, bidi (incl. U+061C), zero-width and separator characters', async () => {
    const path = join(dir, 'hostile.db');
    const { store, db } = openStore({ path });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.record(human());
    const evil = 'agent:main:a\u202eb\u061c\u200b\ufeff\u2028c\u{e0041}';
    db.prepare('UPDATE session_state_heads SET session_key = ?').run(evil);
    db.prepare('UPDATE session_watch_cursors SET watcher_session_key = ?').run(evil);
    store.close();
    for (const sub of ['heads', 'cursors']) {
      const { code, out } = await inspect([path, sub]);
      expect(code).toBe(0);
      const text = out.join('\n');
      expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text.replace(/\n/g, '')), sub).toBe(false);
      expect(text).toContain('agent:main:a\\u202eb\\u061c\\u200b\\ufeff\\u2028c\\u{e0041}');
    }
    expect(printable('x\u200dy\ud800')).toBe('x\\u200dy\\ud800');
  });

  it('R9d: heads and cursors show integers beyond 2^53 exactly, without failing', async () => {
    const path = join(dir, 'big.db');
    const { store, db } = openStore({ path });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.record(human());
    db.exec('UPDATE session_state_heads SET last_sequence = 9007199254740993');
    db.exec('UPDATE session_watch_cursors SET material = 9007199254740995, notified = 9007199254740995');
    store.close();
    const heads = await inspect([path, 'heads']);
    expect(heads.code).toBe(0);
    expect(heads.out.join('\n')).toContain('9007199254740993');
    const cursors = await inspect([path, 'cursors', '--json']);
    expect(cursors.code).toBe(0);
    const parsed = JSON.parse(cursors.out.join('\n')) as { materialSequence: unknown; pending: boolean }[];
    expect(parsed[0]).toMatchObject({ materialSequence: '9007199254740995', pending: true });
  });
});
