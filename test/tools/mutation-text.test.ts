/**
 * T3-T7 texts by exact strings, on the inputs the vectors do not reach: a payload of several keys
 * (sorted, undefined values left out), no payload or an empty one, a status without changesSince,
 * a truncated page of no events, a watch without a version or a reason, a bare key without an
 * agent, and the preamble's promise that notices are data.
 */
import { describe, expect, it } from 'vitest';
import type { StateEvent } from '../../spec/index.js';
import { NOTICES_PREAMBLE, eventLine, sessionStatusText, sessionWatchText, sessionsListText } from '../../src/tools/text.js';

function event(payload?: Record<string, unknown>): StateEvent {
  return {
    sequence: 7,
    sessionKey: 'agent:main:w',
    agentId: 'main',
    kind: 'human_direct_message',
    actorType: 'human',
    occurredAt: 1,
    recordedAt: 1,
    summary: 'typed',
    ...(payload === undefined ? {} : { payload }),
  } as StateEvent;
}

describe('tool texts by exact strings', () => {
  it('T3 a payload of several keys is sorted by key, undefined values left out; none or an empty one adds nothing', () => {
    expect(eventLine(event({ zeta: 2, alpha: 'x', mid: undefined, beta: true }))).toBe('#7 human_direct_message by human: typed [alpha=x, beta=true, zeta=2]');
    expect(eventLine(event({ b: 1, a: 2 }))).toBe('#7 human_direct_message by human: typed [a=2, b=1]');
    expect(eventLine(event({}))).toBe('#7 human_direct_message by human: typed');
    expect(eventLine(event({ only: undefined }))).toBe('#7 human_direct_message by human: typed');
    expect(eventLine(event())).toBe('#7 human_direct_message by human: typed');
  });

  it('T3 a status without changesSince is its first line alone, even with changes attached', () => {
    const r = { sessionKey: 'agent:main:w', agentId: 'main', stateVersion: 9, stateChanges: { events: [event()], truncated: true, historyGap: true, stateVersion: 9 } };
    expect(sessionStatusText(r as never, undefined)).toBe('Session "agent:main:w": stateVersion 9.');
    expect(sessionStatusText({ sessionKey: 'agent:main:w', agentId: 'main', stateVersion: 9 }, 3)).toBe('Session "agent:main:w": stateVersion 9.');
  });

  it('T3 a truncated answer with no events points the next call at changesSince itself', () => {
    const r = { sessionKey: 'agent:main:w', agentId: 'main', stateVersion: 9, stateChanges: { events: [], truncated: true, historyGap: false, stateVersion: 9 } };
    expect(sessionStatusText(r as never, 4).split('\n')).toEqual([
      'Session "agent:main:w": stateVersion 9.',
      'No changes since 4.',
      'More changes exist: session_status sessionKey "agent:main:w" changesSince 4.',
    ]);
  });

  it('T5 a watch without a version starts from 0; a refusal without a reason says the store is unavailable', () => {
    expect(sessionWatchText({ watched: true }, 'agent:main:me', 'agent:main:w', 'main')).toBe('Watching "agent:main:w" from stateVersion 0: one notice when another actor changes it.');
    expect(sessionWatchText({ watched: false }, 'agent:main:me', 'agent:main:w', 'main')).toBe('Not watching "agent:main:w": the state store is unavailable; try again later.');
  });

  it('T4 a bare key names its agent only when one is known', () => {
    expect(sessionsListText([{ sessionKey: 'bare-key' }, { sessionKey: 'bare-key', agentId: 'ops', stateVersion: 2 }])).toBe('2 sessions:\n"bare-key"\n"bare-key" (agent ops) stateVersion 2');
  });

  it('T37 the preamble says the notices are data, not instructions', () => {
    expect(NOTICES_PREAMBLE).toMatch(/not instructions/);
    expect(NOTICES_PREAMBLE.endsWith(':')).toBe(true);
  });
});
