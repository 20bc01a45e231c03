import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';
import { messageOf } from '../shared/logger.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs in strict mode, with its TypeErrors turned into UsageError (exit 2) that name
 * the command, so "unknown option" never surfaces as a stack trace.
 */
export function parseCommand<T extends Options>(
  argv: readonly string[],
  options: T,
  command: string,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error, command), [`see: session-state-kit ${command} --help`]);
  }
}

function describeParseError(error: unknown, command: string): string {
  const message = messageOf(error);
  const code = (error as { code?: unknown }).code;
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) return `unknown option ${unknown[1]} for "${command}"`;
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `${missing[1]?.replace(/^-\w, /, '')} needs a value`;
  const ambiguous = /Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const flag = ambiguous[1]?.replace(/^-\w, /, '') ?? 'the option';
    return `${flag} needs a value (for a value starting with "-", write ${flag}=VALUE)`;
  }
  const notString = /Option '([^']+)' does not take an argument/.exec(message);
  if (notString) return `${notString[1]?.replace(/^-\w, /, '')} takes no value`;
  return message.split('\n')[0] ?? message;
}

/** Quotes an argument for a copy-pasteable hint (POSIX shell). */
export { shellQuote } from './shell-words.js';

/** A non-negative (or >= min) safe integer from a flag value; anything else is a usage error. */
export function parseInteger(value: string, flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** The longest poll interval a command accepts: a minute (timers overflow past 2^31-1 ms into a 1 ms poll). */
export const MAX_POLL_MS = 60_000;

/** Wants help if --help / -h is anywhere before a "--" terminator (checked before strict parsing, so a bad flag next to --help still shows help). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
