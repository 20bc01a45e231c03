import { describe, expect, it } from 'vitest';
import type { SessionStateStore, StoreFactory } from '../spec/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { vectorNeeds, withoutLacking } from './capabilities.js';
import { runConformance } from './runner.js';
import { loadVectors } from './vectors.js';

/** W4: an implementation that says what it lacks is judged on everything else, and never counted as passing what it lacks. */

/** The reference store without unwatch and ambient watches: a ProtocolError for each, as the wire says. */
const withoutUnwatch: StoreFactory = (options) => {
  const store = createMemoryStore(options);
  const refuse = (what: string) => {
    throw Object.assign(new Error(`unknown op ${what}`), { name: 'ProtocolError' });
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'unwatch') return () => refuse('unwatch');
      if (prop === 'watch') return (r: { provenance?: string }) => (r?.provenance === 'ambient' ? refuse("provenance 'ambient'") : target.watch(r as never));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  }) as SessionStateStore;
};

describe('W4 lacks', () => {
  it('W4 a scenario loses exactly the calls and options that need what is lacking', () => {
    const sc = {
      options: { retentionMs: 5, maxRows: 3, noticeLink: 'https://x/{sessionKey}' },
      commands: [
        { op: 'watch' as const, args: [{ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:peer', agentId: 'main', provenance: 'ambient' }] },
        { op: 'watch' as const, args: [{ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:peer', agentId: 'main' }] },
        { op: 'unwatch' as const, args: [{}] },
        { op: 'recordMany' as const, args: [[]] },
        { op: 'drainNotices' as const, args: ['agent:main:main'] },
      ],
    };
    const out = withoutLacking(sc, ['limits', 'unwatch', 'ambientWatch']);
    expect(out.options).toEqual({ noticeLink: 'https://x/{sessionKey}' });
    expect(out.commands.map((c) => c.op)).toEqual(['watch', 'recordMany', 'drainNotices']);
    expect(withoutLacking(sc, [])).toBe(sc);
    const needs = new Map(loadVectors().map((v) => [v.name, vectorNeeds(v)]));
    expect(needs.get('r52-unwatch')).toContain('unwatch');
    expect(needs.get('r21b-ambient-watch')).toContain('ambientWatch');
    expect(needs.get('r15-r24-coalescing')).toEqual([]);
  });

  it('W4 an implementation without unwatch that says so passes, with what judges unwatch reported as not run', async () => {
    const r = await runConformance(withoutUnwatch, { seed: 4, runs: 4, lacks: ['unwatch', 'ambientWatch'], properties: ['model', 'R52-unwatch', 'R21b-ambient-watch', 'R27b-ack-notices', 'vectors'] });
    expect(r.properties.filter((p) => !p.passed).map((p) => p.failure?.message)).toEqual([]);
    expect(r.properties.map((p) => p.name)).toEqual(['model', 'R27b-ack-notices', 'vectors']);
    expect(r.notRun.map((n) => n.name)).toEqual(expect.arrayContaining(['R21b-ambient-watch', 'R52-unwatch', 'vector r52-unwatch', 'vector r21b-ambient-watch']));
  });

  it('W4 the same implementation that does not say so fails: a lacking part is never passed silently', async () => {
    const r = await runConformance(withoutUnwatch, { seed: 4, runs: 30, properties: ['R52-unwatch'] });
    expect(r.passed).toBe(false);
    expect(r.properties[0]!.failure!.message).toMatch(/ProtocolError/);
  });
});
