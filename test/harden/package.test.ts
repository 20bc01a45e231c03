/**
 * Packaging as a consumer sees it: build, `npm pack`, install the tarball (and the kit's own
 * dependencies, packed from this checkout, so nothing comes from the registry) into an empty
 * project, then check there that
 * - class names survive both builds (CJS `ValidationError.name` was `_class2`; tsup keepNames);
 * - the published types check with only the kit installed (no @types/node, no
 *   @types/better-sqlite3) under strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes and
 *   skipLibCheck false, with moduleResolution node16, bundler and node10;
 * - every TypeScript block of README.md compiles there, and the ones not marked `no-run` run.
 * Sized by count (one build, one pack, one install), with a generous timeout for a shared machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installKit, must, packedKit, run } from './packed-kit.js';
import { readmeBlocks } from './markdown-blocks.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
let work = '';
let consumer = '';

const STRICT = { strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true, types: [], target: 'es2022', lib: ['es2022'] };
const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  node10: { module: 'commonjs', moduleResolution: 'node10' },
} as const;

const CORE_CONSUMER = `
import { ValidationError, ClockError, createMemoryStore, noticeText, type SessionStateStore, type Notice } from 'session-state-kit';
import { RecordInput, LIMITS } from 'session-state-kit/spec';
import { parseNoticeText, snapshotInput } from 'session-state-kit/core';
import { createMemoryStore as createReference, type MemoryStoreOptions } from 'session-state-kit/memory';
import { createSqliteStore, StateDatabaseOpenError, CorruptStateError, type SqliteStoreOptions, type BetterSqlite3Database } from 'session-state-kit/sqlite';

const options: MemoryStoreOptions = { retentionMs: LIMITS.retentionMs };
const store: SessionStateStore = createMemoryStore(options);
const reference = createReference({ now: () => 0 });
const notices: Notice[] = reference.pendingNotices('agent:main:main');
const first: Notice | undefined = notices[0];
const sqlite: SqliteStoreOptions = { path: ':memory:', busyTimeoutMs: 10 };
const errors: Error[] = [new ValidationError('x', 'type', 'm'), new ClockError(-1)];
const handle: BetterSqlite3Database | undefined = undefined;
export { store, first, sqlite, errors, handle, RecordInput, parseNoticeText, snapshotInput, noticeText, createSqliteStore, StateDatabaseOpenError, CorruptStateError };
`;
// fast-check's own declarations do not resolve pure-rand under node10, so the conformance entry
// (which re-exports fast-check types) is checked under node16 and bundler only.
const CONFORMANCE_CONSUMER = `
import { runConformance, formatReport, type ExecOptions } from 'session-state-kit/conformance';
const exec: ExecOptions = { timeoutMs: 1000 };
export { runConformance, formatReport, exec };
`;
// The upstream and feed entries name AbortSignal through KitAbortSignal: the standard type where the
// consumer has one (lib dom, @types/node), a structural stand-in where it has none (lib es2022 alone).
const UPSTREAM_CONSUMER = `
import { createUpstreamMonitor, createSqliteLinkStore } from 'session-state-kit/upstream';
export { createUpstreamMonitor, createSqliteLinkStore };
`;

// The agent-facing entries: the tools are plain data and functions; the feed's iterator takes a
// KitAbortSignal, as upstream does.
const AGENT_CONSUMER = `
import { createSessionTools, sessionStatusText, type SessionTools } from 'session-state-kit/tools';
import { createNoticeFeed, startDelivery, type NoticeFeed, type PendingSource } from 'session-state-kit/feed';
declare const tools: SessionTools;
declare const feed: NoticeFeed;
declare const source: PendingSource;
export { createSessionTools, sessionStatusText, tools, feed, source, createNoticeFeed, startDelivery };
`;

const UPSTREAM_DOM_CONSUMER = `
import type { RemoteHistoryCall } from 'session-state-kit/upstream';
const call: RemoteHistoryCall = async (_request, signal) => {
  const standard: AbortSignal | undefined = signal;
  return standard?.aborted ? [] : [];
};
export { call };
`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ssk-consumer-'));
  consumer = join(work, 'consumer');
  installKit(consumer, packedKit());
}, 1_500_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package in an empty project', () => {
  it('keeps class names in the CJS and the ESM build', () => {
    const names = ['ValidationError', 'ClockError'];
    const sqliteNames = ['StateDatabaseError', 'StateDatabaseOpenError', 'CorruptStateError', 'NotAStateDatabaseError', 'SqliteDriverUnavailableError'];
    const script = (load: string) =>
      `${load}; console.log(JSON.stringify([...${JSON.stringify(names)}.map((n) => kit[n].name), ...${JSON.stringify(sqliteNames)}.map((n) => sqlite[n].name)]))`;
    const cjs = must(process.execPath, ['-e', script("const kit = require('session-state-kit'), sqlite = require('session-state-kit/sqlite')")], { cwd: consumer });
    const esm = must(process.execPath, ['--input-type=module', '-e', script("const kit = await import('session-state-kit'), sqlite = await import('session-state-kit/sqlite')")], { cwd: consumer });
    expect(JSON.parse(cjs)).toEqual([...names, ...sqliteNames]);
    expect(JSON.parse(esm)).toEqual([...names, ...sqliteNames]);
  }, 120_000);

  it('imports session-state-kit/openai-agents without its optional peer, and says what to install when a tool is made', () => {
    expect(existsSync(join(consumer, 'node_modules', '@openai', 'agents'))).toBe(false);
    const script = "const m = await import('session-state-kit/openai-agents'); try { m.sessionFunctionTools({ store: {} }); console.log('no error'); } catch (e) { console.log(e.message); }";
    const out = must(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
    expect(out).toContain('session-state-kit/openai-agents needs its peer @openai/agents: npm install @openai/agents@^0.20.0');
  }, 120_000);

  for (const [name, resolution] of Object.entries(RESOLUTIONS)) {
    it(`its types check with only the kit installed: strict, exactOptionalPropertyTypes, skipLibCheck false, moduleResolution ${name}`, () => {
      const dir = join(consumer, `types-${name}`);
      mkdirSync(dir, { recursive: true });
      const checks: { file: string; code: string; lib: string[] }[] = [
        { file: 'core.ts', code: CORE_CONSUMER, lib: ['es2022'] },
        { file: 'upstream.ts', code: UPSTREAM_CONSUMER, lib: ['es2022'] },
        // With lib dom the signals the kit hands over are the standard AbortSignal itself.
        { file: 'upstream-dom.ts', code: UPSTREAM_DOM_CONSUMER, lib: ['es2022', 'dom'] },
        { file: 'agent.ts', code: AGENT_CONSUMER, lib: ['es2022'] },
        ...(name === 'node10' ? [] : [{ file: 'conformance.ts', code: CONFORMANCE_CONSUMER, lib: ['es2022'] }]),
      ];
      for (const c of checks) writeFileSync(join(dir, c.file), c.code);
      // One tsc program per lib set, not per file: each run checks every declaration the kit ships
      // (skipLibCheck false), which is most of its cost. tsc names the file of any error.
      const groups: { lib: string[]; files: string[] }[] = [];
      for (const c of checks) {
        const same = groups.find((g) => g.lib.join() === c.lib.join());
        if (same) same.files.push(c.file);
        else groups.push({ lib: c.lib, files: [c.file] });
      }
      for (const { lib, files } of groups) {
        const config = join(dir, `tsconfig.${lib.join('-')}.json`);
        writeFileSync(config, JSON.stringify({ compilerOptions: { ...STRICT, ...resolution, lib }, files }));
        const r = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], { cwd: consumer });
        expect(r.out, files.join(', ')).toBe('');
        expect(r.status).toBe(0);
      }
    }, 900_000);
  }

  it('every TypeScript block of README.md and the guides in docs/ compiles against the package, and the runnable ones run', () => {
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const blocks = pages.flatMap((page) => readmeBlocks(readFileSync(join(root, page), 'utf8')).map((b) => ({ ...b, page })));
    expect(blocks.filter((b) => b.page === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const dir = join(consumer, 'readme');
    mkdirSync(dir, { recursive: true });
    // The guides' runtime snippets import the runtimes, optional peers a consumer installs itself:
    // linked from this checkout, so their types resolve and nothing comes from the registry.
    for (const peer of ['@anthropic-ai/claude-agent-sdk', '@openai/agents']) linkPeer(peer);
    const files = blocks.map((b, i) => {
      const file = `block-${i + 1}-${b.page.replace(/\W+/g, '-')}-line-${b.line}.ts`;
      // Each block is a module of its own (its names do not clash with another block's).
      writeFileSync(join(dir, file), `${b.code}\nexport {};\n`);
      return file;
    });
    for (const resolution of [RESOLUTIONS.node16, RESOLUTIONS.bundler]) {
      // skipLibCheck: the runtimes' own declarations do not all check under these flags (the kit's
      // do: the tests above check them with skipLibCheck false); the snippets themselves are checked.
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...STRICT, ...resolution, lib: ['es2022', 'dom'], skipLibCheck: true }, files }));
      const r = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir });
      expect(r.out).toBe('');
    }
    const runnable = blocks.map((b, i) => [b, files[i]!] as const).filter(([b]) => b.run);
    expect(runnable.length).toBeGreaterThanOrEqual(1);
    for (const [b, file] of runnable) {
      const r = run(bin('tsx'), [file], { cwd: dir });
      expect(r.status, `${b.page} line ${b.line}:\n${r.out}`).toBe(0);
    }
  }, 900_000);
});

/** Links an optional peer from this checkout into the consumer (its dependencies resolve from the checkout, through the link's real path). */
function linkPeer(name: string, replace = false): void {
  const link = join(consumer, 'node_modules', name);
  if (existsSync(link) && !replace) return;
  rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), link, 'dir');
}

/**
 * The release check: what `npm pack` ships and that the installed CLI works as documented. The
 * budget is the packed size with room for growth (1.2 MB on 2026-12-04): a release that doubles
 * it has shipped something by mistake (test data, bench results, a database).
 */
const PACKED_BUDGET_BYTES = 3_000_000;

describe('the release: npm pack contents, size, and the installed CLI', () => {
  it('ships the builds, the spec, the vectors and the README; no tests, bench results, databases or sources; within the size budget', () => {
    // A fresh clone has no dist/: packing must build it first, or the tarball installs broken.
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['prepack']).toBe('npm run build');
    // dist/ was built in beforeAll; --ignore-scripts keeps the build's log out of the JSON.
    const [pack] = JSON.parse(must('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })) as { size: number; files: { path: string }[] }[];
    const paths = pack!.files.map((f) => f.path);
    for (const required of ['package.json', 'README.md', 'spec/PROTOCOL.md', 'dist/cli.js', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts']) expect(paths).toContain(required);
    // The guides link a few measurements by file (docs/performance.md, docs/scaling.md): those ship, no other bench file.
    const linkedMeasurements = /^bench\/(HISTORY\.md|results\/reference-[a-z-]+-2026-12-0[4-7][b-z]?\.json)$/;
    // docs/api/ is generated on demand (npm run docs:api) and not committed: never shipped either.
    const unwanted = paths.filter((p) => !linkedMeasurements.test(p) && /^(test|bench|mutation|src|runtimes|docs\/api)\/|\.(db|db-wal|db-shm|sqlite|tgz)$|(^|\/)results\//.test(p));
    expect(unwanted).toEqual([]);
    // Every relative link of the README, and of the guides it links, resolves inside the installed package.
    const linked = (page: string) =>
      [...readFileSync(join(root, page), 'utf8').matchAll(/\]\(([^)#\s<]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t)).map((t) => join(dirname(page), t).replace(/\/$/, ''));
    const pages = ['README.md', ...linked('README.md').filter((p) => p.endsWith('.md'))];
    const dead = [...new Set(pages.flatMap((page) => linked(page).map((target) => [page, target] as const)))].filter(([, target]) => !paths.includes(target) && !paths.some((p) => p.startsWith(`${target}/`)));
    expect(dead.map(([page, target]) => `${page} -> ${target}`)).toEqual([]);
    expect(pack!.size).toBeLessThanOrEqual(PACKED_BUDGET_BYTES);
  }, 300_000);

  it('npm publish --dry-run accepts the package as it is: nothing auto-corrected (a bin npm would drop), the same files as npm pack, no registry reached', () => {
    // An address nothing listens on: a dry run that needed the registry would fail here, not reach it.
    const r = spawnSync('npm', ['publish', '--dry-run', '--json', '--ignore-scripts', '--fetch-retries', '0', '--registry', 'http://127.0.0.1:9/'], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/errors corrected|was invalid and removed/);
    const published = JSON.parse(r.stdout) as Record<string, { files: { path: string }[] }>;
    const [pack] = JSON.parse(must('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })) as { files: { path: string }[] }[];
    expect(published['session-state-kit']!.files.map((f) => f.path).sort()).toEqual(pack!.files.map((f) => f.path).sort());
    const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
    expect(bin).toEqual({ 'session-state-kit': 'dist/cli.js' });
  }, 300_000);

  it('`npx session-state-kit --help` and `demo` work after install, and each command the demo prints runs as printed there', () => {
    const env = { npm_config_offline: 'true', npm_config_yes: 'false' };
    const help = run('npx', ['session-state-kit', '--help'], { cwd: consumer, env });
    expect(help.status, help.out).toBe(0);
    expect(help.out).toMatch(/\bdemo\b/);
    const memory = run('npx', ['session-state-kit', 'demo', '--store', 'memory'], { cwd: consumer, env });
    expect(memory.status, memory.out).toBe(0);
    expect(memory.out).toContain('changesSince');
    // better-sqlite3 is a dependency, installed above with --ignore-scripts (offline: no prebuilt
    // download, no compiler run), so its addon is not built; this checkout's built copy stands in.
    linkPeer('better-sqlite3', true);
    const kept = run('npx', ['session-state-kit', 'demo', '--keep'], { cwd: consumer, env });
    expect(kept.status, kept.out).toBe(0);
    const file = /The state is kept in (\S+);/.exec(kept.out)?.[1];
    try {
      const printed = kept.out.split('\n').filter((l) => /^ {3}\S.* inspect /.test(l)).map((l) => l.trim());
      expect(printed).toHaveLength(3);
      for (const line of printed) {
        expect(line.startsWith('npx session-state-kit inspect ')).toBe(true);
        const r = run('/bin/sh', ['-c', line], { cwd: consumer, env });
        expect(r.status, `${line}\n${r.out}`).toBe(0);
      }
    } finally {
      if (file) rmSync(file, { force: true });
    }
  }, 300_000);
});
