/**
 * R86: one page's stream, decision by decision, over a stand-in response whose backlog the test
 * sets: behind when the socket asked to drain or more than the cap waits (64 KiB by default, at
 * the cap is not behind); a page that fell behind is owed exactly one `changed` on drain; a
 * keep-alive is never owed and never queued behind a backlog.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { LiveClient } from '../../src/ui/live.js';

class FakeResponse extends EventEmitter {
  writableNeedDrain = false;
  writableLength = 0;
  written: string[] = [];
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
}

const CHANGED = 'event: changed\ndata: {}\n\n';

function client(max?: number) {
  const res = new FakeResponse();
  const c = max === undefined ? new LiveClient(res as unknown as ServerResponse) : new LiveClient(res as unknown as ServerResponse, max);
  return { res, c };
}

describe('R86 a page stream', () => {
  it('R86 is behind when the socket asked to drain, or when more than the cap waits; at the cap it is not', () => {
    const { res, c } = client(100);
    c.send('a');
    res.writableNeedDrain = true;
    c.send('b');
    res.writableNeedDrain = false;
    res.writableLength = 101;
    c.send('c');
    res.writableLength = 100;
    c.send('d');
    expect(res.written).toEqual(['a', 'd']);
    expect(c.dropped).toBe(2);
  });

  it('R86 the default cap is 64 KiB', () => {
    const { res, c } = client();
    res.writableLength = 64 * 1024;
    c.send('at');
    res.writableLength = 64 * 1024 + 1;
    c.send('over');
    expect(res.written).toEqual(['at']);
  });

  it('R86 a page that fell behind is owed one changed on drain, once, and only when no longer behind', () => {
    const { res, c } = client(100);
    res.writableNeedDrain = true;
    c.send('x');
    c.send('y');
    res.emit('drain'); // still behind: nothing yet
    expect(res.written).toEqual([]);
    res.writableNeedDrain = false;
    res.emit('drain');
    res.emit('drain');
    expect(res.written).toEqual([CHANGED]);
    // Nothing owed: a drain writes nothing.
    res.emit('drain');
    expect(res.written).toEqual([CHANGED]);
  });

  it('R86 a keep-alive is written when the page keeps up and skipped (not owed) when it is behind', () => {
    const { res, c } = client(100);
    c.keepAlive();
    expect(res.written).toEqual([': keep-alive\n\n']);
    res.writableLength = 500;
    c.keepAlive();
    res.writableLength = 0;
    res.emit('drain');
    expect(res.written).toEqual([': keep-alive\n\n']);
    expect(c.dropped).toBe(0);
  });
});
