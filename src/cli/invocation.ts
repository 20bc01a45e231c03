import { relative, sep } from 'node:path';
import { shellQuote } from './args.js';

/**
 * How a person runs this CLI again from where it runs now, so every command it prints works as
 * printed: `npx session-state-kit` when it is the installed package (npm put it under
 * node_modules, or npx ran its bin); `npm run -s cli --` when it runs from a checkout's sources
 * (`npm run demo` in a fresh clone, where nothing is built or linked yet); otherwise `node` and
 * the file that runs (a build run directly), relative to the working directory when inside it.
 */
export function cliInvocation(entry: string | undefined = process.argv[1], cwd: string = process.cwd()): string {
  if (entry === undefined) return 'npx session-state-kit';
  const path = entry.split(sep).join('/');
  if (/\/node_modules\/(session-state-kit\/|\.bin\/session-state-kit$)/.test(path)) return 'npx session-state-kit';
  if (/\/src\/cli\/main\.ts$/.test(path)) return 'npm run -s cli --';
  const rel = relative(cwd, entry);
  const inside = rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
  return `node ${shellQuote(inside ? rel : entry)}`;
}
