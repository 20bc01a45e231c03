import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { runHook } from '../hook/run-hook.js';
import { bundleCli, tempDir } from './helpers.js';

/**
 * T9: a hook runs before every answer a person waits for, so `hook` loads its own program, one
 * file, and nothing of the other commands. Built as dist/ is built (scripts/cli-build.ts).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const THREAD = '019a7c2e-5b1d-7f30-9c4e-2d8a6b1f0e93';
const SESSION = `agent:codex:${THREAD}`;

let built = '';
let inputs: string[] = [];
beforeAll(async () => {
  // Under the repository, so the storage driver resolves from its node_modules, by real path.
  built = join(realpathSync(join(root, 'node_modules')), '.cache', 'ssk-cli-tests', `hook-program-${process.pid}`);
  mkdirSync(built, { recursive: true });
  inputs = (await bundleCli(built)).hookProgramInputs;
});
afterAll(() => rmSync(built, { recursive: true, force: true }));

describe('T9 the hook is a program of its own', () => {
  it('T9 its one file holds the hook, the SQLite store, the core and the spec, and no MCP server, live view, PostgreSQL or other command', () => {
    const ours = inputs.filter((f) => !f.startsWith('node_modules/'));
    expect(ours).toContain('src/cli/hook.ts');
    expect(ours).toContain('src/sqlite/sqlite-store.ts');
    const foreign = inputs.filter((f) => /^(src\/(mcp|ui|feed|postgres|upstream)\/|src\/cli\/(commands|init|doctor|mcp|ui|inspect|demo-command|conformance|bench)\.ts$|conformance\/|node_modules\/(@modelcontextprotocol|zod|ajv|pg)\/)/.test(f));
    expect(foreign).toEqual([]);
  });

  it('T9 a hook run loads the CLI\'s entry, its static imports and the hook program, no other chunk', async () => {
    // Only those files are copied beside each other: a hook that reached for any other chunk
    // would fail to load.
    const only = join(built, 'only');
    mkdirSync(only, { recursive: true });
    const entry = readFileSync(join(built, 'cli.mjs'), 'utf8');
    const staticImports = [...entry.matchAll(/^import[^'"]*from\s*["'](\.\/[^"']+)["']/gm)].map((m) => m[1]!);
    for (const f of ['cli.mjs', 'hook-program.mjs', ...staticImports]) copyFileSync(join(built, f), join(only, f));
    expect(staticImports.length).toBeLessThanOrEqual(2);

    const dir = tempDir('hook-program');
    const db = join(dir, 'team.db');
    const store = createSqliteStore({ path: db, logger: silentLogger });
    store.watch({ watcherSessionKey: 'agent:claude-code:lead', targetSessionKey: SESSION, agentId: 'codex' });
    store.close();
    const prompt = { session_id: THREAD, turn_id: 'turn-1', transcript_path: null, cwd: dir, hook_event_name: 'UserPromptSubmit', model: 'gpt-5.5-codex', permission_mode: 'default', prompt: 'hello' };
    const r = await runHook(join(only, 'cli.mjs'), ['codex', '--db', db], prompt);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const check = createSqliteStore({ path: db, logger: silentLogger });
    try {
      expect(check.changesSince({ sessionKey: SESSION, since: 0, agentId: 'codex' }).stateChanges.events.map((e) => e.kind)).toEqual(['human_direct_message']);
    } finally {
      check.close();
    }
    // The copy is partial indeed: any other command needs chunks it lacks.
    const other = spawnSync(process.execPath, [join(only, 'cli.mjs'), 'demo', '--store', 'memory'], { encoding: 'utf8', timeout: 60_000 });
    expect(other.status).not.toBe(0);
    expect(other.stderr).toMatch(/Cannot find module/);
  });
});
