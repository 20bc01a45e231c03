import { describe, expect, it } from 'vitest';
import { ChangesSinceResponse, Notice } from '../spec/index.js';
import { assertSchema } from '../src/core/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { demoClock, runDemo } from '../src/cli/demo.js';

describe('the README demo', () => {
  it('prints one notice and a changesSince response in the seed\'s shapes', async () => {
    const clock = demoClock();
    const store = createMemoryStore({ now: clock.now });
    const lines: string[] = [];
    const notices: unknown[] = [];
    const responses: unknown[] = [];
    const spy = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const out = value.apply(target, args);
          if (prop === 'drainNotices') notices.push(...(out as unknown[]));
          if (prop === 'changesSince') responses.push(out);
          return out;
        };
      },
    });
    await runDemo(spy, clock, (l) => lines.push(l));
    const text = lines.join('\n');
    expect(text).toContain('pending notices: 1');
    expect(text).toMatch(/Reconcile before acting: session_status sessionKey "agent:main:subagent:research" changesSince 1\./);
    expect(text).toContain('"historyGap": false');
    expect(text).toContain('historyGap true');
    for (const n of notices) assertSchema(Notice, n);
    for (const r of responses) assertSchema(ChangesSinceResponse, r);
    expect(responses.length).toBe(2);
  });
});
