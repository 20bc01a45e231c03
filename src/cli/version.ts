import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own version, from its package.json: the nearest one named session-state-kit above
 * this file (dist/ when installed, src/cli/ in a checkout), so it cannot drift from what npm shipped.
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'session-state-kit' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Not here: one directory up.
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
