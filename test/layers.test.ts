import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house's floors: each part of src/ (a folder, or a file at its top) imports only parts on a
 * lower floor, never a sibling and never one above, and spec/'s schemas import nothing outside
 * spec/. Contracts sit at the bottom (spec/schemas: the store contract and the feed source's), so
 * a store implements them without importing the service that uses them. docs/layout.md draws the
 * same floors.
 */
export const FLOORS: readonly (readonly string[])[] = [
  ['spec'],
  ['src/core'],
  ['src/shared'],
  ['src/tools'],
  ['src/feed', 'src/memory', 'src/sqlite', 'src/postgres'],
  ['src/mcp', 'src/upstream', 'src/integrations', 'src/ui', 'src/index.ts'],
  // The CLI is the top: it also runs the conformance suite (conformance/ is outside src/).
  ['src/cli'],
];

const root = resolve(import.meta.dirname, '..');

/** The part a path of the repository belongs to, or undefined outside src/ and spec/. */
function partOf(path: string): string | undefined {
  const [top, second] = path.split('/');
  if (top === 'spec') return 'spec';
  if (top === 'conformance') return 'conformance';
  if (top !== 'src' || second === undefined) return undefined;
  return second.endsWith('.ts') || second.endsWith('.js') ? `src/${second.replace(/\.js$/, '.ts')}` : `src/${second}`;
}

const floorOf = (part: string) => FLOORS.findIndex((f) => f.includes(part));

/** Relative module names a TypeScript text imports: static, type-only, re-exports and import() of a literal. */
export function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

/** Every import that breaks the floors, as "from -> to (why)", for files given by repository path. */
export function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    const from = partOf(path);
    if (from === undefined) continue;
    for (const name of importsOf(text)) {
      if (!name.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(path), name)).split('\\').join('/');
      const to = partOf(target);
      if (from === 'spec') {
        if (!target.startsWith('spec/')) out.push(`${path} -> ${target} (spec/schemas imports nothing outside spec/)`);
        continue;
      }
      // The CLI runs the suite, so the suite stands below it.
      if (from === 'conformance') {
        if (to === 'src/cli') out.push(`${path} -> ${target} (conformance/ stands below src/cli, which runs it)`);
        continue;
      }
      // src/cli runs the suite (outside the floors of src/, above every part but the CLI).
      if (to === undefined || to === from || (to === 'conformance' && from === 'src/cli')) continue;
      const a = floorOf(from);
      const b = floorOf(to);
      if (a < 0) out.push(`${path}: ${from} has no floor in FLOORS`);
      else if (b < 0) out.push(`${path} -> ${target}: ${to} has no floor in FLOORS`);
      else if (b === a) out.push(`${path} -> ${target} (a sibling on floor ${a}: ${to})`);
      else if (b > a) out.push(`${path} -> ${target} (up from floor ${a} to ${b}: ${to})`);
    }
  }
  return out;
}

/** The stores: a host above them reaches each through its front door (index.ts), never a file behind it. */
const STORES = ['src/memory', 'src/sqlite', 'src/postgres'];

/** Every import from above the stores' floor into a store's file other than its index.ts. */
export function frontDoorViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const storeFloor = floorOf('src/sqlite');
  for (const [path, text] of files) {
    const from = partOf(path);
    if (from === undefined || floorOf(from) <= storeFloor) continue;
    for (const name of importsOf(text)) {
      if (!name.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(path), name)).split('\\').join('/');
      const store = STORES.find((s) => target.startsWith(`${s}/`));
      if (store !== undefined && target !== `${store}/index.js` && target !== `${store}/index.ts`) out.push(`${path} -> ${target} (behind ${store}'s front door)`);
    }
  }
  return out;
}

function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of ['src', 'spec/schemas', 'conformance']) {
    for (const f of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts')) files.set(`${dir}/${f.split('\\').join('/')}`, readFileSync(join(root, dir, f), 'utf8'));
    }
  }
  files.set('spec/index.ts', readFileSync(join(root, 'spec', 'index.ts'), 'utf8'));
  return files;
}

describe('the floors of src/', () => {
  it('every part of src/ has a floor, and every import runs down', () => {
    const files = sources();
    const parts = new Set([...files.keys()].map(partOf).filter((p): p is string => p !== undefined && p !== 'conformance'));
    expect([...parts].filter((p) => floorOf(p) < 0)).toEqual([]);
    expect(layerViolations(files)).toEqual([]);
  });

  it('a deliberate upward import, a sibling import and a spec import of src/ are each caught', () => {
    const files = new Map([
      ['src/sqlite/x.ts', "import type { NoticeFeed } from '../feed/index.js';\nimport { x } from '../core/index.js';"],
      ['src/core/y.ts', "export { thing } from '../shared/logger.js';"],
      ['src/shared/z.ts', "const m = await import('../cli/main.js');"],
      ['spec/schemas/w.ts', "import {\n  a,\n} from '../../src/core/index.js';"],
      ['conformance/openclaw/v.ts', "import { lineDiff } from '../../src/cli/line-diff.js';\nimport { x } from '../../src/shared/logger.js';"],
    ]);
    expect(layerViolations(files)).toEqual([
      'src/sqlite/x.ts -> src/feed/index.js (a sibling on floor 4: src/feed)',
      'src/core/y.ts -> src/shared/logger.js (up from floor 1 to 2: src/shared)',
      'src/shared/z.ts -> src/cli/main.js (up from floor 2 to 6: src/cli)',
      'spec/schemas/w.ts -> src/core/index.js (spec/schemas imports nothing outside spec/)',
      'conformance/openclaw/v.ts -> src/cli/line-diff.js (conformance/ stands below src/cli, which runs it)',
    ]);
  });
});

describe("the stores' front doors", () => {
  it('no host imports a store file other than its index.ts', () => {
    expect(frontDoorViolations(sources())).toEqual([]);
  });

  it('a host reaching behind a front door is caught, and a store importing its own files is not', () => {
    const files = new Map([
      ['src/ui/a.ts', "import { SQL } from '../sqlite/sql.js';\nimport { SqliteStateReader } from '../sqlite/index.js';"],
      ['src/cli/b.ts', "const { PgStateReader } = await import('../postgres/state-reader.js');"],
      ['src/sqlite/c.ts', "import { SQL } from './sql.js';"],
      ['src/feed/d.ts', "import type { SqliteStore } from '../sqlite/sqlite-store.js';"],
    ]);
    expect(frontDoorViolations(files)).toEqual([
      "src/ui/a.ts -> src/sqlite/sql.js (behind src/sqlite's front door)",
      "src/cli/b.ts -> src/postgres/state-reader.js (behind src/postgres's front door)",
    ]);
  });
});

describe('docs/layout.md', () => {
  const doc = readFileSync(join(root, 'docs', 'layout.md'), 'utf8');
  const [paths, scripts] = doc.split('## Scripts');
  const rows = [...paths!.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);

  it('names only paths that exist, and has a row for every folder of the repository and of src/', () => {
    expect(rows.filter((r) => !existsSync(join(root, r)))).toEqual([]);
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    const topFolders = [...new Set(tracked.filter((f) => f.includes('/')).map((f) => f.split('/')[0]!))];
    const srcFolders = readdirSync(join(root, 'src')).filter((f) => statSync(join(root, 'src', f)).isDirectory()).map((f) => `src/${f}`);
    const named = new Set(rows.map((r) => r.replace(/\/$/, '')));
    expect([...topFolders, ...srcFolders].filter((f) => !named.has(f) && ![...named].some((n) => n.startsWith(`${f}/`)))).toEqual([]);
  });

  it('names only npm scripts the package has', () => {
    const have = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const named = [...scripts!.matchAll(/`npm (?:run )?([\w:-]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !have.includes(n))).toEqual([]);
  });

  it('draws the floors the test holds', () => {
    const block = /<!-- floors: begin -->\n([\s\S]*?)<!-- floors: end -->/.exec(doc)?.[1] ?? '';
    const drawn = block.trim().split('\n').map((line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(drawn).toEqual(FLOORS.map((f) => [...f]));
  });
});
