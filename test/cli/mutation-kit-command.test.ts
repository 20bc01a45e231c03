import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigWriteError, databasePathProblem, readText, realFile, writeChanges } from '../../src/cli/config-files.js';
import { isOwnHook, kitHookCommand, kitLauncher, kitPluginModule, parseKitHookCommand, parseKitMcpEntry, sameLauncher } from '../../src/cli/kit-command.js';
import { MAIN } from './init-fixture.js';

/**
 * T45, T47, T50: the commands init writes, and how they are recognised again (by their words,
 * never a substring); and how init's files are read and written (by real path, all or nothing,
 * each with a backup), with the paths a hook could never open named.
 */
const NODE = '/usr/local/bin/node';
const CLI = '/opt/kit/dist/cli.js';

describe('T50 the launcher: this Node and this script, as absolute words', () => {
  it('T50 from a built CLI: Node and the script\'s real path, no flags; from source, the loader flags too', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ssk-kit-')));
    try {
      const built = join(dir, 'cli.js');
      writeFileSync(built, '');
      symlinkSync(built, join(dir, 'session-state-kit'));
      expect(kitLauncher(join(dir, 'session-state-kit'), NODE, ['--import', 'tsx'])).toEqual([NODE, built]);
      for (const name of ['cli.mjs', 'cli.cjs']) {
        writeFileSync(join(dir, name), '');
        expect(kitLauncher(join(dir, name), NODE, ['--x'])).toEqual([NODE, join(dir, name)]);
      }
      expect(kitLauncher(MAIN, NODE, ['--import', '/abs/tsx.mjs'])).toEqual([NODE, '--import', '/abs/tsx.mjs', MAIN]);
      const other = join(dir, 'index.js');
      writeFileSync(other, '');
      expect(() => kitLauncher(other, NODE, [])).toThrow(`session-state-kit runs from ${other}, not from its CLI (dist/cli.js): run init through the installed command`);
      for (const name of ['cli.ts', 'xcli.js', 'cli.jsx', 'main.tsx']) {
        writeFileSync(join(dir, name), '');
        expect(() => kitLauncher(join(dir, name), NODE, [])).toThrow('not from its CLI');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => kitLauncher('', NODE, [])).toThrow('cannot tell which file runs session-state-kit (process.argv[1] is missing), so no hook command can name it');
    expect(() => kitLauncher('/no/such/cli.js', NODE, [])).toThrow('process.argv[1] is missing');
  });

  it('T63 the OpenCode plugin module beside the CLI, or the source module from main.ts; a copy without one is named', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ssk-kit-')));
    try {
      writeFileSync(join(dir, 'cli.js'), '');
      expect(() => kitPluginModule([NODE, join(dir, 'cli.js')])).toThrow(`this copy of session-state-kit has no OpenCode plugin module (${join(dir, 'opencode.js')}): build it (npm run build), or run init from an installed kit`);
      writeFileSync(join(dir, 'opencode.js'), '');
      writeFileSync(join(dir, 'opencode.mjs'), '');
      expect(kitPluginModule([NODE, join(dir, 'cli.js')])).toBe(pathToFileURL(join(dir, 'opencode.js')).href);
      expect(kitPluginModule([NODE, join(dir, 'cli.mjs')])).toBe(pathToFileURL(join(dir, 'opencode.mjs')).href);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(kitPluginModule([NODE, MAIN])).toBe(pathToFileURL(join(MAIN, '..', '..', 'integrations', 'opencode', 'index.ts')).href);
  });
});

describe('T45 T50 a hook command is the kit\'s by its exact words', () => {
  const line = kitHookCommand([NODE, CLI], 'codex', '/p/state db.sqlite');

  it('T45 written quoted for sh, read back word for word', () => {
    expect(line).toBe(`${NODE} ${CLI} hook codex --db '/p/state db.sqlite'`);
    expect(parseKitHookCommand(line)).toEqual({ launcher: [NODE, CLI], form: 'pinned', cli: 'codex', db: '/p/state db.sqlite' });
    expect(parseKitHookCommand(`${NODE} --import /t/tsx.mjs /src/cli/main.ts hook gemini --db /d.db`)).toEqual({ launcher: [NODE, '--import', '/t/tsx.mjs', '/src/cli/main.ts'], form: 'pinned', cli: 'gemini', db: '/d.db' });
    expect(parseKitHookCommand('npx session-state-kit hook claude-code --db /d.db')).toEqual({ launcher: ['npx', 'session-state-kit'], form: 'npx', cli: 'claude-code', db: '/d.db' });
    for (const node of ['/n/nodejs', '/n/node20', '/n/node22.1.0', '/n/bun']) expect(parseKitHookCommand(`${node} ${CLI} hook codex --db /d.db`)?.form).toBe('pinned');
  });

  it('T45 anything else is not the kit\'s: another program, a relative path, a compound command, another shape', () => {
    for (const command of [
      undefined,
      42,
      `node ${CLI} hook codex --db /d.db`,
      `${NODE} cli.js hook codex --db /d.db`,
      `/usr/bin/python ${CLI} hook codex --db /d.db`,
      `/n/node-v22 ${CLI} hook codex --db /d.db`,
      `${NODE} /opt/kit/dist/other.js hook codex --db /d.db`,
      `${NODE} ${CLI} hook codex --db /d.db; rm -rf ~`,
      `${NODE} ${CLI} hook codex --db ''`,
      `${NODE} ${CLI} hook codex --db`,
      `${NODE} ${CLI} hooks codex --db /d.db`,
      `${NODE} ${CLI} hook codex --file /d.db`,
      `${CLI} hook codex --db /d.db`,
      'npx session-state-kit@latest hook codex --db /d.db',
      'npx other hook codex --db /d.db',
      `echo "${NODE} ${CLI} hook codex --db /d.db"`,
      `${NODE} '${CLI}`,
    ]) {
      expect(parseKitHookCommand(command)).toBeUndefined();
    }
  });

  it('T45 own means this CLI and this database, exactly', () => {
    expect(isOwnHook(line, 'codex', '/p/state db.sqlite')).toBe(true);
    expect(isOwnHook(line, 'gemini', '/p/state db.sqlite')).toBe(false);
    expect(isOwnHook(line, 'codex', '/p/state.db')).toBe(false);
    expect(isOwnHook('echo session-state-kit hook codex --db /p/state.db', 'codex', '/p/state.db')).toBe(false);
  });

  it('T50 an MCP entry is the kit\'s when its words before "mcp" are a launcher', () => {
    expect(parseKitMcpEntry({ command: NODE, args: [CLI, 'mcp', '--db', '/d.db'] })).toEqual({ launcher: [NODE, CLI], form: 'pinned' });
    expect(parseKitMcpEntry({ command: 'npx', args: ['session-state-kit', 'mcp'] })).toEqual({ launcher: ['npx', 'session-state-kit'], form: 'npx' });
    for (const entry of [null, 'x', { command: NODE }, { command: NODE, args: 'mcp' }, { command: NODE, args: [CLI, 1, 'mcp'] }, { command: 7, args: ['mcp'] }, { command: 'mcp', args: [] }, { command: NODE, args: [CLI, '--db', '/d.db'] }, { command: 'docs-mcp', args: ['mcp'] }]) {
      expect(parseKitMcpEntry(entry)).toBeUndefined();
    }
  });

  it('T50 launchers are the same when every word is', () => {
    expect(sameLauncher([NODE, CLI], [NODE, CLI])).toBe(true);
    expect(sameLauncher([NODE, CLI], [NODE, '/other/cli.js'])).toBe(false);
    expect(sameLauncher([NODE, CLI], [NODE, CLI, 'x'])).toBe(false);
    expect(sameLauncher([NODE], [NODE, CLI])).toBe(false);
  });
});

describe('T45 init\'s files: by real path, all or nothing, each with a backup', () => {
  let dir = '';
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'ssk-files-')));
  });
  afterEach(() => {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  it('T45 a path is its real file; one not there yet is named under its nearest real folder', () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    writeFileSync(join(dir, 'real', 'f.json'), '{}');
    expect(realFile(join(dir, 'link', 'f.json'))).toBe(join(dir, 'real', 'f.json'));
    expect(realFile(join(dir, 'link', 'new', 'deeper.json'))).toBe(join(dir, 'real', 'new', 'deeper.json'));
    expect(readText(join(dir, 'link', 'f.json'))).toBe('{}');
    expect(readText(join(dir, 'absent.json'))).toBeUndefined();
    expect(() => readText(join(dir, 'real'))).toThrow(/EISDIR/);
  });

  it('T45 writes every change with a backup of what was there and its permissions; removes what is to go', () => {
    const kept = join(dir, 'kept.json');
    const gone = join(dir, 'gone.js');
    writeFileSync(kept, 'old');
    chmodSync(kept, 0o600);
    writeFileSync(gone, 'plugin');
    writeChanges(
      [
        { path: kept, real: kept, before: 'old', after: 'new' },
        { path: gone, real: gone, before: 'plugin', after: undefined },
        { path: join(dir, 'a', 'b.json'), real: join(dir, 'a', 'b.json'), before: undefined, after: 'made' },
      ],
      'STAMP',
    );
    expect(readFileSync(kept, 'utf8')).toBe('new');
    expect(readFileSync(`${kept}.STAMP.bak`, 'utf8')).toBe('old');
    expect(readFileSync(kept).length).toBe(3);
    expect((statSync(kept).mode & 0o777).toString(8)).toBe('600');
    expect(existsSync(gone)).toBe(false);
    expect(readFileSync(`${gone}.STAMP.bak`, 'utf8')).toBe('plugin');
    expect(readFileSync(join(dir, 'a', 'b.json'), 'utf8')).toBe('made');
    expect((statSync(join(dir, 'a', 'b.json')).mode & 0o777).toString(8)).toBe('644');
    expect(existsSync(join(dir, 'a', 'b.json.STAMP.bak'))).toBe(false);
  });

  it('T45 one file that cannot be written stops them all, each problem named, before anything is written', () => {
    const ro = join(dir, 'ro.json');
    writeFileSync(ro, '{}');
    chmodSync(ro, 0o444);
    mkdirSync(join(dir, 'folder.json'));
    const fine = join(dir, 'fine.json');
    const attempt = () =>
      writeChanges(
        [
          { path: fine, real: fine, before: undefined, after: 'x' },
          { path: ro, real: ro, before: '{}', after: '{"a":1}' },
          { path: join(dir, 'folder.json'), real: join(dir, 'folder.json'), before: '', after: 'y' },
        ],
        'S',
      );
    expect(attempt).toThrow(ConfigWriteError);
    expect(attempt).toThrow(`${ro} is read-only; ${join(dir, 'folder.json')} is not a regular file; nothing was written`);
    expect(existsSync(fine)).toBe(false);
    writeFileSync(join(dir, 'plain'), '');
    expect(() => writeChanges([{ path: join(dir, 'plain', 'x.json'), real: join(dir, 'plain', 'x.json'), before: undefined, after: 'x' }], 'S')).toThrow(`${join(dir, 'plain')} is not a folder; nothing was written`);
  });

  it('T45 T47 a database path no hook could open is named; a new file in a writable folder, an empty file or a SQLite file is fine', () => {
    expect(databasePathProblem(join(dir, 'new.db'))).toBeUndefined();
    expect(databasePathProblem(join(dir, 'sub', 'dir', 'new.db'))).toBeUndefined();
    writeFileSync(join(dir, 'empty.db'), '');
    expect(databasePathProblem(join(dir, 'empty.db'))).toBeUndefined();
    writeFileSync(join(dir, 'real.db'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]));
    expect(databasePathProblem(join(dir, 'real.db'))).toBeUndefined();
    writeFileSync(join(dir, 'short.db'), 'SQLite');
    expect(databasePathProblem(join(dir, 'short.db'))).toBe(`${join(dir, 'short.db')} is not a SQLite database (it holds something else; pass a new file or an existing state database)`);
    mkdirSync(join(dir, 'folder.db'));
    expect(databasePathProblem(join(dir, 'folder.db'))).toBe(`${join(dir, 'folder.db')} is a folder, not a database file`);
    expect(databasePathProblem('/dev/null')).toBe('/dev/null is not a regular file, not a database file');
    const long = 'x'.repeat(256);
    expect(databasePathProblem(join(dir, long, 'a.db'))).toBe('a name in the path is 256 bytes long (the system takes at most 255)');
    expect(databasePathProblem(join(dir, 'x'.repeat(255), 'a.db'))).toBeUndefined();
    const deep = `/${Array.from({ length: 20 }, () => 'y'.repeat(205)).join('/')}`;
    expect(databasePathProblem(deep)).toBe(`the path is ${Buffer.byteLength(deep)} bytes long (the system takes at most 4095)`);
    expect(databasePathProblem(`/${'z'.repeat(4094)}`)).toBe('a name in the path is 4094 bytes long (the system takes at most 255)');
    const ro = join(dir, 'ro.db');
    writeFileSync(ro, '');
    chmodSync(ro, 0o444);
    expect(databasePathProblem(ro)).toBe(`${ro} is read-only`);
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    // Root may write anywhere: the folder's own bits decide only for others, so only say what holds.
    const problem = databasePathProblem(join(locked, 'new.db'));
    if (process.getuid?.() === 0) expect(problem).toBeUndefined();
    else expect(problem).toBe(`the folder ${locked} is not writable by this user`);
  });
});

