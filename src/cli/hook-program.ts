import { hookCommand } from './hook.js';
import { processIo, reportFailure, type Io } from './io.js';

/**
 * `session-state-kit hook …` as its own program (T9): main.ts loads this module, and only this
 * one, for a hook run. The build makes it one file apart from the other commands' chunks
 * (scripts/cli-build.ts), so a hook's start parses and runs only what a hook needs.
 */
export async function runHookProgram(argv: readonly string[], io: Io = processIo): Promise<number> {
  try {
    return await hookCommand(argv.slice(1), io);
  } catch (error) {
    return reportFailure(error, io);
  }
}
