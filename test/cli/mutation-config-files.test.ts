import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigWriteError, initLockPath, withInitLock, writeChanges } from '../../src/cli/config-files.js';

/**
 * T45: init's lock and its all-or-nothing write, in process: the lock held while the work runs and
 * released after it (also when the work throws), a holder that is gone taken over, a living one
 * waited for and then named, and a write that fails after its checks leaving every file as it was.
 * The other processes are real ones.
 */
let dir: string;
let lock: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-config-files-'));
  lock = join(dir, 'init.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited (and been reaped): nobody runs under it. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('T45 withInitLock', () => {
  it('is one file per user in the temp folder', () => {
    const uid = process.getuid?.() ?? 0;
    expect(initLockPath()).toBe(join(tmpdir(), `session-state-kit-init-${uid}.lock`));
  });

  it('holds the lock (this pid in it) while the work runs, and removes it after, also when the work throws', () => {
    const seen = withInitLock(() => readFileSync(lock, 'utf8'), { lock });
    expect(seen).toBe(String(process.pid));
    expect(existsSync(lock)).toBe(false);
    expect(() =>
      withInitLock(
        () => {
          throw new Error('planned failure');
        },
        { lock },
      ),
    ).toThrow('planned failure');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder no longer runs', () => {
    writeFileSync(lock, String(deadPid()));
    expect(withInitLock(() => readFileSync(lock, 'utf8'), { lock, waitMs: 0 })).toBe(String(process.pid));
    expect(existsSync(lock)).toBe(false);
  });

  it('fails, naming the holder, once a living holder kept it past the wait; the lock stays the holder\'s', () => {
    writeFileSync(lock, String(process.pid));
    let ran = false;
    const started = Date.now();
    const attempt = () =>
      withInitLock(
        () => {
          ran = true;
        },
        { lock, waitMs: 1_600 },
      );
    let failure: unknown;
    try {
      attempt();
    } catch (error) {
      failure = error;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_600);
    expect(failure).toBeInstanceOf(ConfigWriteError);
    expect((failure as Error).name).toBe('ConfigWriteError');
    expect((failure as Error).message).toBe(`another init (pid ${process.pid}) has held ${lock} for 2 s; nothing was written`);
    expect(ran).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
  });

  it.each([
    ['no pid', ''],
    ['text', 'abc'],
    ['pid 0', '0'],
    ['a negative pid', '-4'],
    ['a fraction', '1.5'],
  ])('a lock holding %s is never taken over (nobody can tell it is free)', (_what, content) => {
    writeFileSync(lock, content);
    const shown = Number.isSafeInteger(Number(content)) ? Number(content) : '?';
    expect(() => withInitLock(() => 1, { lock, waitMs: 0 })).toThrow(`another init (pid ${shown}) has held ${lock} for 0 s; nothing was written`);
    expect(readFileSync(lock, 'utf8')).toBe(content);
  });

  it('waits for a living holder that lets go, then runs', async () => {
    // Another process takes the lock, says so, and removes it a little later.
    const holder = spawn(process.execPath, ['-e', `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(lock)}, String(process.pid), { flag: 'wx' }); console.log('held'); setTimeout(() => fs.rmSync(${JSON.stringify(lock)}), 300);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the holder exited first (${code})`)));
    });
    const holderPid = readFileSync(lock, 'utf8');
    expect(holderPid).toBe(String(holder.pid));
    expect(withInitLock(() => readFileSync(lock, 'utf8'), { lock, waitMs: 30_000 })).toBe(String(process.pid));
    expect(existsSync(lock)).toBe(false);
  });

  it('passes on a failure to create the lock other than "held"', () => {
    expect(() => withInitLock(() => 1, { lock: join(dir, 'no-such-folder', 'init.lock'), waitMs: 0 })).toThrow(/ENOENT/);
  });
});

describe('T45 writeChanges: a write that fails after its checks leaves every file as it was', () => {
  it('a temporary file that cannot be made stops the write; the ones made before it are removed', () => {
    const first = join(dir, 'first.json');
    const second = join(dir, 'second.json');
    writeFileSync(first, 'one');
    writeFileSync(second, 'two');
    // The temporary file beside the second is taken by a folder: the checks pass, the write cannot.
    mkdirSync(`${second}.${process.pid}.tmp`);
    const attempt = () =>
      writeChanges(
        [
          { path: first, real: first, before: 'one', after: 'ONE' },
          { path: second, real: second, before: 'two', after: 'TWO' },
        ],
        'S',
      );
    expect(attempt).toThrow(ConfigWriteError);
    expect(attempt).toThrow(/^EISDIR: .*; nothing was written$/);
    expect(readFileSync(first, 'utf8')).toBe('one');
    expect(readFileSync(second, 'utf8')).toBe('two');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') && f !== `second.json.${process.pid}.tmp`)).toEqual([]);
  });
});
