import { identityKey } from '../core/index.js';
import type { UpstreamLink } from '../core/upstream/index.js';
import type { LinkToken, UpstreamLinkStore } from './types.js';

const copy = (link: UpstreamLink): UpstreamLink => JSON.parse(JSON.stringify(link)) as UpstreamLink;

/** The in-memory link store: a Map and a counter. Copies in and out, like a real store would. */
export class MemoryLinkStore implements UpstreamLinkStore {
  private readonly links = new Map<string, UpstreamLink>();
  private serial = 0;

  list(): UpstreamLink[] {
    return [...this.links.values()].map(copy);
  }

  get(sessionKey: string, agentId: string): UpstreamLink | undefined {
    const link = this.links.get(identityKey(sessionKey, agentId));
    return link ? copy(link) : undefined;
  }

  compareAndSet(sessionKey: string, agentId: string, expected: LinkToken | undefined, next: UpstreamLink | null): boolean {
    const id = identityKey(sessionKey, agentId);
    const current = this.links.get(id);
    const matches = expected === undefined ? current === undefined : current !== undefined && current.serial === expected.serial && current.revision === expected.revision;
    if (!matches) return false;
    if (next === null) this.links.delete(id);
    else this.links.set(id, copy(next));
    return true;
  }

  nextSerial(): number {
    return ++this.serial;
  }
}

/** U1: an empty in-memory link store (the monitor's default; forgets on restart). */
export function createMemoryLinkStore(): MemoryLinkStore {
  return new MemoryLinkStore();
}
