/**
 * R9, R35: failures of the signal log are logged, never thrown into the caller's action.
 * Injectable so runtimes route it into their own logs and tests can assert on it.
 */
export interface Logger {
  /** Something went wrong and the kit went on (a best-effort write failed, a check was inconclusive). */
  warn(message: string, details?: Record<string, unknown>): void;
  /** Something failed that needs an operator's attention. */
  error(message: string, details?: Record<string, unknown>): void;
}

/** The default logger: console.warn and console.error, prefixed `[session-state-kit]`. */
export const consoleLogger: Logger = {
  warn: (message, details) => console.warn(`[session-state-kit] ${message}`, details ?? ''),
  error: (message, details) => console.error(`[session-state-kit] ${message}`, details ?? ''),
};

/** What went wrong, in one line: an Error's message, or the text of anything else thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as log details: its message and name, or its text when it is not an Error. */
export function errorDetails(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { error: error.message, name: error.name } : { error: String(error) };
}

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => {}, error: () => {} };

/** A logger that keeps what it was told; for tests and diagnostics. */
export function memoryLogger(): Logger & { entries: { level: 'warn' | 'error'; message: string; details?: Record<string, unknown> }[] } {
  const entries: { level: 'warn' | 'error'; message: string; details?: Record<string, unknown> }[] = [];
  return {
    entries,
    warn: (message, details) => void entries.push(details ? { level: 'warn', message, details } : { level: 'warn', message }),
    error: (message, details) => void entries.push(details ? { level: 'error', message, details } : { level: 'error', message }),
  };
}

/**
 * R9: the logger is the runtime's code, and a logger that throws (a closed stream, a strict mock)
 * must not turn a logged storage failure into a failure of the caller's action. Every call is
 * guarded; a throw is swallowed and counted through `onFailure`.
 */
export function guardedLogger(logger: Logger, onFailure: (error: unknown) => void = () => {}): Logger {
  const call = (level: 'warn' | 'error', message: string, details?: Record<string, unknown>): void => {
    try {
      if (details === undefined) logger[level](message);
      else logger[level](message, details);
    } catch (error) {
      try {
        onFailure(error);
      } catch {
        // Nothing left to tell.
      }
    }
  };
  return { warn: (m, d) => call('warn', m, d), error: (m, d) => call('error', m, d) };
}
