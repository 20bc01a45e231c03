import { describe, expect, it } from 'vitest';
import { opencodeDedupeSpace, opencodeEventMeaning, planOpencodeCompaction, planOpencodePrompt, planOpencodeStart, type OpencodeEvent } from '../../src/integrations/opencode/events.js';

/**
 * T61, T62, T33: what an OpenCode bus event means to the kit, field by field (the recorded payloads
 * in opencode.test.ts are the well-formed ones), and the plans of a start, a prompt and a
 * compaction by their exact shape.
 */
const cases: [string, OpencodeEvent, ReturnType<typeof opencodeEventMeaning>][] = [
  ['a created session, by its info', { type: 'session.created', properties: { info: { id: 'ses_a' } } }, { kind: 'created', sessionId: 'ses_a' }],
  ['its info wins over a session id beside it', { type: 'session.created', properties: { info: { id: 'ses_a' }, sessionID: 'ses_b' } }, { kind: 'created', sessionId: 'ses_a' }],
  ['a sub-agent\'s (its parent named)', { type: 'session.created', properties: { info: { id: 'ses_a', parentID: 'ses_p' } } }, { kind: 'created', sessionId: 'ses_a', parentId: 'ses_p' }],
  ['an empty parent is none', { type: 'session.created', properties: { info: { id: 'ses_a', parentID: '' } } }, { kind: 'created', sessionId: 'ses_a' }],
  ['a parent that is not text is none', { type: 'session.created', properties: { info: { id: 'ses_a', parentID: 7 } } }, { kind: 'created', sessionId: 'ses_a' }],
  ['no info: the session id beside it', { type: 'session.created', properties: { sessionID: 'ses_b' } }, { kind: 'created', sessionId: 'ses_b' }],
  ['info as a list is no info', { type: 'session.created', properties: { info: ['ses_x'], sessionID: 'ses_b' } }, { kind: 'created', sessionId: 'ses_b' }],
  ['an empty id', { type: 'session.created', properties: { info: { id: '' }, sessionID: 'ses_b' } }, undefined],
  ['an id that is not text', { type: 'session.created', properties: { info: { id: 42 } } }, undefined],
  ['no properties', { type: 'session.created' }, undefined],
  ['properties as a list', { type: 'session.created', properties: [{ info: { id: 'ses_a' } }] }, undefined],
  ['properties null', { type: 'session.created', properties: null }, undefined],
  ['a compaction', { type: 'session.compacted', properties: { sessionID: 'ses_a' } }, { kind: 'compacted', sessionId: 'ses_a' }],
  ['a compaction without a session', { type: 'session.compacted', properties: { sessionID: '' } }, undefined],
  ['an idle session', { type: 'session.idle', properties: { sessionID: 'ses_a' } }, { kind: 'idle', sessionId: 'ses_a' }],
  ['an idle without a session', { type: 'session.idle', properties: {} }, undefined],
  ['a stored part', { type: 'message.part.updated', properties: { part: { id: 'prt_1', sessionID: 'ses_a', type: 'text' } } }, { kind: 'part-stored', sessionId: 'ses_a', partId: 'prt_1' }],
  ['an automatic compaction part', { type: 'message.part.updated', properties: { part: { id: 'prt_1', sessionID: 'ses_a', type: 'compaction', auto: true } } }, { kind: 'part-stored', sessionId: 'ses_a', partId: 'prt_1', compaction: { auto: true } }],
  ['a manual compaction part', { type: 'message.part.updated', properties: { part: { id: 'prt_1', sessionID: 'ses_a', type: 'compaction', auto: false } } }, { kind: 'part-stored', sessionId: 'ses_a', partId: 'prt_1', compaction: { auto: false } }],
  ['"auto" other than true is manual', { type: 'message.part.updated', properties: { part: { id: 'prt_1', sessionID: 'ses_a', type: 'compaction', auto: 'yes' } } }, { kind: 'part-stored', sessionId: 'ses_a', partId: 'prt_1', compaction: { auto: false } }],
  ['a part without an id', { type: 'message.part.updated', properties: { part: { sessionID: 'ses_a' } } }, undefined],
  ['a part without a session', { type: 'message.part.updated', properties: { part: { id: 'prt_1' } } }, undefined],
  ['a part with an empty session', { type: 'message.part.updated', properties: { part: { id: 'prt_1', sessionID: '' } } }, undefined],
  ['a part as a list', { type: 'message.part.updated', properties: { part: [{ id: 'prt_1', sessionID: 'ses_a' }] } }, undefined],
  ['another event', { type: 'session.updated', properties: { info: { id: 'ses_a' } } }, undefined],
  ['an event named like an Object member', { type: 'constructor', properties: { sessionID: 'ses_a' } }, undefined],
];

describe('T61 opencodeEventMeaning', () => {
  it.each(cases)('%s', (_what, event, meaning) => {
    expect(opencodeEventMeaning(event)).toEqual(meaning);
  });
});

describe('T61 the plans', () => {
  it('the dedupe space: opencode, or opencode@<agent> for another agent id', () => {
    expect(opencodeDedupeSpace('opencode')).toBe('opencode');
    expect(opencodeDedupeSpace('oc-b')).toBe('opencode@oc-b');
  });

  it('a start registers the session once and introduces its key only if new', () => {
    expect(planOpencodeStart('ses_1', 'opencode')).toEqual({
      event: 'session.created',
      sessionKey: 'agent:opencode:ses_1',
      records: [{ sessionKey: 'agent:opencode:ses_1', agentId: 'opencode', kind: 'created', actorType: 'system', summary: 'session started via opencode', dedupeKey: 'opencode:created:ses_1' }],
      introduce: 'agent:opencode:ses_1',
      introduceOnlyIfNew: true,
    });
  });

  it('a first prompt registers, records the person\'s turn once per message id, and tells the key', () => {
    expect(planOpencodePrompt({ sessionId: 'ses_1', messageId: 'msg_1', registered: false, keyLineLost: true }, 'oc-b')).toEqual({
      event: 'chat.message',
      sessionKey: 'agent:oc-b:ses_1',
      records: [
        { sessionKey: 'agent:oc-b:ses_1', agentId: 'oc-b', kind: 'created', actorType: 'system', summary: 'session started via opencode', dedupeKey: 'opencode@oc-b:created:ses_1' },
        { sessionKey: 'agent:oc-b:ses_1', agentId: 'oc-b', kind: 'human_direct_message', actorType: 'human', summary: 'human message via opencode', payload: { channel: 'opencode' }, onlyIfWatched: true, dedupeKey: 'opencode@oc-b:prompt:ses_1:msg_1' },
      ],
      deliverTo: 'agent:oc-b:ses_1',
      introduce: 'agent:oc-b:ses_1',
    });
  });

  it('a later prompt without a message id records the turn without a dedupe key and tells no key', () => {
    expect(planOpencodePrompt({ sessionId: 'ses_1', messageId: '', registered: true, keyLineLost: false }, 'opencode')).toEqual({
      event: 'chat.message',
      sessionKey: 'agent:opencode:ses_1',
      records: [{ sessionKey: 'agent:opencode:ses_1', agentId: 'opencode', kind: 'human_direct_message', actorType: 'human', summary: 'human message via opencode', payload: { channel: 'opencode' }, onlyIfWatched: true }],
      deliverTo: 'agent:opencode:ses_1',
    });
  });

  it('T33 a compaction records compacted, automatic or manual', () => {
    for (const auto of [true, false]) {
      expect(planOpencodeCompaction('ses_1', auto, 'opencode')).toEqual({
        event: 'session.compacted',
        sessionKey: 'agent:opencode:ses_1',
        records: [{ sessionKey: 'agent:opencode:ses_1', agentId: 'opencode', kind: 'compacted', actorType: 'system', summary: `context compacted (${auto ? 'auto' : 'manual'}) via opencode` }],
      });
    }
  });
});
