#!/usr/bin/env node
/**
 * The `session-state-kit` program (the package's bin). A command hook runs before every answer a
 * person waits for, in every agent CLI, for every hook event (T9), so `hook` is dispatched before
 * anything else loads: its program is one file of its own (hook-program.ts, built apart) holding
 * the hook, the SQLite store and the spec, and none of the other commands, the MCP server or the
 * live view. Every other command goes through commands.ts.
 */
import * as nodeModule from 'node:module';
import { exitFlushed } from './exit.js';

// Node 22.1 and later keep what they compiled between runs (in the system's temporary directory;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): a hook starts on every prompt. Node 20 has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const argv = process.argv.slice(2);
const run: (argv: readonly string[]) => Promise<number> =
  argv[0] === 'hook' ? (await import('./hook-program.js')).runHookProgram : (await import('./commands.js')).main;
run(argv).then(exitFlushed, (error: unknown) => {
  process.stderr.write(`session-state-kit: ${error instanceof Error ? error.message : String(error)}\n`);
  exitFlushed(1);
});
