import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the OpenClaw target's programs come from: the pinned `openclaw` package and a Node it
 * runs on, installed from npm into a cache folder outside the project's node_modules (neither is
 * a dependency of the kit). A new OpenClaw release is one bump of OPENCLAW_VERSION and a
 * regenerated report (docs/openclaw.md).
 */

/** The OpenClaw release the report and the CI check are pinned to. */
export const OPENCLAW_VERSION = '2026.9.6';
/** OpenClaw 2026.9.6 needs Node >= 24.16 (its `engines`); the same build runtimes/ pins for the Node 24 tests. */
export const NODE24_VERSION = '24.22.3';

export interface OpenClawInstall {
  version: string;
  /** The `dist/` folder of the installed package. */
  dist: string;
  /** The Node 24 executable. */
  node: string;
  root: string;
}

/** The cache folder: $SSK_CACHE_DIR, else $XDG_CACHE_HOME/session-state-kit, else ~/.cache/session-state-kit. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env['SSK_CACHE_DIR']) return env['SSK_CACHE_DIR'];
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'session-state-kit');
}

function npm(args: string[], cwd: string, progress: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const on = (d: Buffer) => void (tail = (tail + d.toString('utf8')).slice(-4000));
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    // npm says little until it is done: a line every 10 s says it is still at work.
    const started = Date.now();
    const ticker = setInterval(() => progress(`  still installing (${Math.round((Date.now() - started) / 1000)} s)`), 10_000);
    child.on('error', (error) => (clearInterval(ticker), reject(error)));
    child.on('close', (code) => {
      clearInterval(ticker);
      for (const line of tail.trim().split('\n').slice(-2)) if (line.trim() !== '') progress(`  npm: ${line.trim()}`);
      if (code === 0) resolve();
      else reject(new Error(`npm ${args.join(' ')} failed (exit ${code}) in ${cwd}:\n${tail}`));
    });
  });
}

/** One package installed into its own folder once; a stamp written last marks a complete install. */
async function installOnce(dir: string, spec: string, progress: (line: string) => void): Promise<void> {
  const stamp = join(dir, 'installed.json');
  if (existsSync(stamp) && (JSON.parse(readFileSync(stamp, 'utf8')) as { spec?: string }).spec === spec) return;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  progress(`installing ${spec} into ${dir} (from the npm registry, scripts off)`);
  const started = Date.now();
  await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', spec], dir, progress);
  writeFileSync(stamp, `${JSON.stringify({ spec, seconds: Math.round((Date.now() - started) / 1000) })}\n`);
  progress(`installed ${spec} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The pinned OpenClaw and Node 24, installed if they are not yet (progress lines through
 * `progress`). `version` overrides the pin for a trial of a newer release.
 */
export async function installOpenClaw(progress: (line: string) => void, version = OPENCLAW_VERSION, root = cacheRoot()): Promise<OpenClawInstall> {
  const nodePackage = `node-${process.platform}-${process.arch}`;
  const nodeDir = join(root, `node-${NODE24_VERSION}`);
  const clawDir = join(root, `openclaw-${version}`);
  await installOnce(nodeDir, `${nodePackage}@${NODE24_VERSION}`, progress);
  await installOnce(clawDir, `openclaw@${version}`, progress);
  const node = join(nodeDir, 'node_modules', nodePackage, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  const dist = join(clawDir, 'node_modules', 'openclaw', 'dist');
  if (!existsSync(node)) throw new Error(`${nodePackage}@${NODE24_VERSION} installed no Node at ${node}`);
  if (!existsSync(dist)) throw new Error(`openclaw@${version} installed no dist/ at ${dist}`);
  const installed = (JSON.parse(readFileSync(join(clawDir, 'node_modules', 'openclaw', 'package.json'), 'utf8')) as { version: string }).version;
  if (installed !== version) throw new Error(`asked for openclaw ${version}, the cache holds ${installed} (remove ${clawDir} and run again)`);
  return { version, dist, node, root: clawDir };
}
