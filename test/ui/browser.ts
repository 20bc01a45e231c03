/**
 * Real processes for the live view's tests: `session-state-kit ui` as a child OS process (the
 * bundled CLI, as users run it) and Debian's Chromium driven by playwright-core (no browser
 * download: the system binary, a fresh profile per launch).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { APP_PATH } from '../../src/ui/server.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env['SSK_CHROMIUM'] ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
// The README promises the browser tests: say when they cannot run, and under CI refuse to skip.
if (!hasChromium) {
  const why = `${CHROMIUM} is missing (Debian: apt-get install -y chromium)`;
  if (process.env['CI'] === 'true') throw new Error(`the browser tests cannot run: ${why}; CI must run them`);
  console.warn(`skipped the browser tests: ${why}`);
}

/** Without the background-networking flags Chromium's own connections are refused on a closed network and slow it down. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'ssk-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface UiProcess {
  pid: number;
  /** The printed address, with its token (R87). */
  url: string;
  /** The page's address (under APP_PATH) without the token, and the token as a header for API requests. */
  base: string;
  auth: { authorization: string };
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

/** Starts `ui` and waits for the address it prints. */
export function startUi(cli: string, args: readonly string[], options: { env?: Record<string, string>; uid?: number; gid?: number } = {}): Promise<UiProcess> {
  const as = options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid };
  const child = spawn(process.execPath, [cli, 'ui', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env }, ...as });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`ui did not print its address in 30 s: ${out} ${err}`))), 30_000);
    const check = () => {
      const m = /(http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      const url = new URL(m[1]!);
      const token = url.searchParams.get('token') ?? '';
      resolvePromise({
        pid: child.pid!,
        url: m[1]!,
        base: new URL(APP_PATH, url.origin).href,
        auth: { authorization: `Bearer ${token}` },
        child,
        stdout: () => out,
        stderr: () => err,
        stop: async () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`ui exited with ${code}: ${out} ${err}`));
    });
  });
}

/** Runs test/ui/fixtures/act.ts in its own OS process (the other writer). */
export function act(path: string, ...args: string[]): unknown {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test/ui/fixtures/act.ts'), path, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`act ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}
