/**
 * R40, R44: the demo's file survives a real-clock store. The scenario moves its clock 40 days;
 * a file demo ends at the wall clock, so opening the file afterwards with createSqliteStore (clock
 * Date.now by default, R6) or inspect shows what the demo printed. A taken --db path is refused
 * with a suggestion that works.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../src/cli/demo-command.js';
import { DEMO_AGENT, DEMO_CHILD, DEMO_MANAGER } from '../../src/cli/demo.js';
import { inspectCommand } from '../../src/cli/inspect.js';
import { UsageError } from '../../src/cli/io.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TEST_DRIVER, tempDir } from '../sqlite/helpers.js';

const dir = tempDir('demo-file');

describe('demo file', () => {
  it('R40 R44: a store on the wall clock opening the demo file still sees the pending notice and the delta the demo printed', async () => {
    const path = join(dir, 'demo.db');
    const out: string[] = [];
    expect(await demoCommand(['--db', path], { out: (l) => void out.push(l), err: () => {} })).toBe(0);
    const printed = out.filter((l) => l.startsWith('   > ')).at(-1)!.slice(5);
    const store = createSqliteStore({ path, driver: TEST_DRIVER, logger: silentLogger });
    try {
      expect(store.pendingNotices(DEMO_MANAGER).map((n) => n.text)).toEqual([printed]);
      const delta = store.changesSince({ sessionKey: DEMO_CHILD, agentId: DEMO_AGENT, since: 0 });
      expect(delta.stateVersion).toBe(6);
      expect(delta.stateChanges.events.map((e) => e.sequence)).toEqual([6]);
    } finally {
      store.close();
    }
    const lines: string[] = [];
    expect(await inspectCommand([path, 'notices', DEMO_MANAGER], { out: (l) => void lines.push(l), err: () => {} })).toBe(0);
    expect(lines).toContain(printed);
  });

  it('refuses to overwrite an existing --db and suggests a free path in the same directory that works', async () => {
    const taken = join(dir, 'taken.db');
    writeFileSync(taken, 'mine');
    let hint = '';
    try {
      await demoCommand(['--db', taken], { out: () => {}, err: () => {} });
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      hint = String((error as UsageError).hints?.join('\n') ?? '');
    }
    const suggested = /--db (\S+)/.exec(hint)?.[1]?.replace(/^'|'$/g, '');
    expect(suggested, hint).toBeDefined();
    expect(dirname(suggested!)).toBe(dir);
    expect(existsSync(suggested!)).toBe(false);
    expect(await demoCommand(['--db', suggested!], { out: () => {}, err: () => {} })).toBe(0);
  });
});
