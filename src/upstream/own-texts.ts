import { LIMITS } from '../../spec/index.js';
import { identityKey } from '../core/index.js';
import type { OwnMessage } from '../core/upstream/index.js';

/**
 * U4: the last user messages a session sent upstream from our side, for the echo comparison.
 * Runtimes that keep their own transcript should pass `ownTexts` to the monitor instead (it
 * survives restarts); this in-memory log is the default and forgets on restart.
 */
export class OwnTextLog {
  private readonly bySession = new Map<string, OwnMessage[]>();

  constructor(private readonly window: number = LIMITS.selfEchoWindow) {}

  /** U4: remembers a message the session sent upstream; only the last `window` (default LIMITS.selfEchoWindow) are kept. */
  note(sessionKey: string, agentId: string, text: OwnMessage): void {
    const id = identityKey(sessionKey, agentId);
    const list = this.bySession.get(id) ?? [];
    list.push(text);
    if (list.length > this.window) list.splice(0, list.length - this.window);
    this.bySession.set(id, list);
  }

  /** U4: the session's remembered messages, oldest first. */
  recent(sessionKey: string, agentId: string): OwnMessage[] {
    return [...(this.bySession.get(identityKey(sessionKey, agentId)) ?? [])];
  }

  /** Forgets the session's messages (for a runtime whose session was deleted or reset). */
  forget(sessionKey: string, agentId: string): void {
    this.bySession.delete(identityKey(sessionKey, agentId));
  }
}
