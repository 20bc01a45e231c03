import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCli } from '../cli/helpers.js';

// The MCP SDK is an optional peer dependency, loaded only by `session-state-kit mcp`. The CLI is
// bundled with the SDK (and the storage drivers) external, into a directory outside the repository
// where none of them resolves: as for a user who installed neither.
let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-no-sdk-'));
  await bundleCli(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], input?: string) => spawnSync(process.execPath, [join(dir, 'cli.mjs'), ...args], { cwd: dir, encoding: 'utf8', input: input ?? '', timeout: 30_000 });

describe('T8 the MCP SDK is loaded only by the mcp command', () => {
  it('T8 mcp without the SDK fails with what to install', () => {
    const r = run(['mcp', '--db', join(dir, 'x.db')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^session-state-kit: the mcp command needs the @modelcontextprotocol\/sdk package: /);
    expect(r.stderr).toContain('hint: install it next to session-state-kit: npm install @modelcontextprotocol/sdk');
  });
  it('T8 other commands, and mcp --help, run without it', () => {
    expect(run(['mcp', '--help']).status).toBe(0);
    expect(run(['demo', '--store', 'memory']).status).toBe(0);
    const hook = run(['hook', 'claude-code', '--db', join(dir, 'h.db')], 'not json');
    expect([hook.status, hook.stderr]).toEqual([0, 'session-state-kit hook: input is not JSON\n']);
  });
});
