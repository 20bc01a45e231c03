import type { Logger } from './logger.js';
import { messageOf } from './logger.js';

/**
 * The listeners of a store's committed changes (the feed's `onLocalChange`, PostgreSQL's remote
 * push). The change a listener hears of has already happened, so a listener that throws is logged
 * and the others still run, and neither it nor a throwing logger fails the write (R9).
 */
export class ChangeListeners {
  private readonly listeners = new Set<(payload?: string) => void>();

  constructor(
    private readonly logger: Logger,
    /** How the log line names them, e.g. 'sqlite store: a change listener'. */
    private readonly label: string,
    private readonly details: Record<string, unknown> = {},
  ) {}

  /** Adds a listener; returns its removal. */
  add(listener: (payload?: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  clear(): void {
    this.listeners.clear();
  }

  /** Calls every listener; `payload` is what the change named (R73: a NOTIFY's payload), if anything. */
  fire(payload?: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(payload);
      } catch (error) {
        try {
          this.logger.error(`${this.label} threw`, { ...this.details, error: messageOf(error) });
        } catch {
          // nor may a failing logger
        }
      }
    }
  }
}
