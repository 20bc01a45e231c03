/**
 * R9, R35: failures of the signal log are logged, never thrown into the caller's action.
 * Injectable so runtimes route it into their own logs and tests can assert on it.
 */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export const consoleLogger: Logger = {
  warn: (message, details) => console.warn(`[session-state-kit] ${message}`, details ?? ''),
  error: (message, details) => console.error(`[session-state-kit] ${message}`, details ?? ''),
};

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
