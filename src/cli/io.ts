import { printable } from './table.js';

/**
 * What every command shares: where output goes, the exit codes, and the typed failures that map
 * onto them. Commands throw a CliError; main() turns it into a message on stderr and its code.
 */
export interface Io {
  /** One line of the command's result (stdout). */
  out: (line: string) => void;
  /** Diagnostics and errors (stderr); the text carries its own newlines. */
  err: (text: string) => void;
}

export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (text) => void process.stderr.write(text),
};

/** Documented in every --help and in the README; scripts rely on them, so never renumber. */
export const EXIT = {
  ok: 0,
  /** The command ran and the answer is "no" (a conformance property failed), or an unexpected error. */
  failure: 1,
  /** Bad arguments: unknown command or flag, missing or malformed value. */
  usage: 2,
  /** The database file is missing, is not a session-state database, is from a newer schema, or is unreadable. */
  database: 3,
  /** The database is fine but does not know the session asked about. */
  notFound: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  failure (e.g. a conformance property failed, or an unexpected error)
  2  usage error (unknown command or flag, bad value)
  3  database problem (missing file, not a session-state database, newer schema version)
  4  not found (unknown session; upstream scan: no such transcript file)`;

export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    /** Lines that tell the person what to do next. */
    readonly hints: readonly string[] = [],
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string, hints: readonly string[] = []) {
    super(EXIT.usage, message, hints);
  }
}

export class DatabaseProblem extends CliError {
  override readonly name = 'DatabaseProblem';
  constructor(message: string, hints: readonly string[] = []) {
    super(EXIT.database, message, hints);
  }
}

export class NotFound extends CliError {
  override readonly name = 'NotFound';
  constructor(message: string, hints: readonly string[] = []) {
    super(EXIT.notFound, message, hints);
  }
}

/** Messages can quote user input and file contents: escape controls so the terminal only sees text. */
export function formatCliError(error: CliError): string {
  const hints = error.hints.map((h) => `  hint: ${printable(h)}\n`).join('');
  return `session-state-kit: ${printable(error.message)}\n${hints}`;
}

/** What a command's failure prints and exits with: a CliError its own message and code, anything else its stack. */
export function reportFailure(error: unknown, io: Io): ExitCode {
  if (error instanceof CliError) {
    io.err(formatCliError(error));
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`session-state-kit: unexpected error: ${message}\n`);
  return EXIT.failure;
}
