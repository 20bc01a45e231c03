import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NOT_PERSON_MARKERS,
  classifyClaudeEntry,
  classifyClaudeLine,
  CODEX_INJECTED_FORMS,
  classifyCodexEntry,
  contentParts,
  notHuman,
  parseTime,
  textRule,
  typedCommandText,
  type LineClass,
} from '../../src/core/upstream/index.js';

/** Who wrote a transcript record (U10), exclusion rule by exclusion rule, against the mutants the mutation run (mutation/) left alive. */

const user = (content: unknown, extra: Record<string, unknown> = {}) => ({ type: 'user', message: { role: 'user', content }, ...extra });
const queued = (attachment: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'attachment', attachment: { type: 'queued_command', ...attachment }, ...extra });
const why = (c: LineClass) => (c.human ? { human: true, reason: c.reason, text: c.text } : { verdict: c.verdict, reason: c.reason, detail: c.detail });
const no = (verdict: 'machine' | 'meta', reason: string, detail?: string) => ({ verdict, reason, detail });
const T = '2026-01-01T00:00:30.000Z';

describe('U10 verdicts: bookkeeping is meta, everything else a program wrote is machine', () => {
  it('U10 meta reasons and machine reasons', () => {
    for (const r of ['blank', 'not-json', 'record', 'meta', 'compact-summary', 'model-input', 'resumed-history', 'attachment']) expect(notHuman(r).verdict, r).toBe('meta');
    for (const r of ['assistant', 'sidechain', 'tool-result', 'origin', 'client-output', 'no-text', 'queued-mode', 'not-person-marker', 'prompt-source', 'task-notification', 'injected-context']) {
      expect(notHuman(r).verdict, r).toBe('machine');
    }
    expect(notHuman('meta')).toEqual({ human: false, verdict: 'meta', reason: 'meta' });
    expect(notHuman('meta', 'x')).toEqual({ human: false, verdict: 'meta', reason: 'meta', detail: 'x' });
  });
});

describe('U10 3: text forms no person types (client output, notifications, compaction preamble)', () => {
  // [the form a text starts with, the reason]
  const forms: [string, string][] = [
    ['<local-command-stdout>', 'client-output'],
    ['<local-command-stderr>', 'client-output'],
    ['<local-command-caveat>', 'client-output'],
    ['Caveat: The messages below were generated', 'client-output'],
    ['<bash-stdout>', 'client-output'],
    ['<bash-stderr>', 'client-output'],
    ['[Request interrupted by user', 'client-output'],
    ['<task-notification>', 'task-notification'],
    ['<system-reminder>', 'client-output'],
    ['This session is being continued from a previous conversation', 'compact-summary'],
  ];

  it('U10 each form is removed under every provenance, after leading whitespace, and named', () => {
    for (const [form, reason] of forms) {
      const expected = reason === 'compact-summary' ? 'meta' : 'machine';
      for (const extra of [{}, { origin: { kind: 'human' } }, { promptSource: 'typed' }]) {
        expect(why(classifyClaudeEntry(user(`  \n${form} and the rest`, extra))), form).toEqual(no(expected, reason, form));
      }
    }
  });

  it('U10 a form inside the text (not at its start) is a person quoting it', () => {
    for (const [form] of forms) {
      expect(textRule(`I saw ${form}`, [])).toBeUndefined();
      expect(classifyClaudeEntry(user(`I saw ${form}`)).human).toBe(true);
    }
  });
});

describe('U10 3: not-a-person markers', () => {
  it('U10 default markers: inter-session messages and continue wrappers, in any case, with up to 80 characters between', () => {
    const m = DEFAULT_NOT_PERSON_MARKERS;
    expect(textRule('[Inter-session message] from agent b', m)).toEqual({ reason: 'not-person-marker', detail: '[Inter-session message]' });
    expect(textRule('  [Inter-session message] x', m)?.reason).toBe('not-person-marker');
    expect(textRule('[inter-session message] x', m)).toBeUndefined(); // strings keep case
    const wrap = (between: string) => `\n CONTINUE this conversation using the ${between}transcript below:\n...`;
    expect(textRule(wrap('OpenClaw '), m)?.reason).toBe('not-person-marker');
    expect(textRule(wrap(''), m)?.reason).toBe('not-person-marker');
    expect(textRule(wrap(`${'x'.repeat(78)} `), m)?.reason).toBe('not-person-marker'); // 80 characters between 'the' and 'transcript'
    expect(textRule(wrap(`${'x'.repeat(79)} `), m)).toBeUndefined();
    expect(textRule(wrap('multi\nline '), m)).toBeUndefined();
    expect(textRule('please continue this conversation using the transcript below', m)).toBeUndefined();
    expect(textRule('continue this conversation using thetranscript below', m)).toBeUndefined();
    expect(textRule(wrap('OpenClaw '), m)?.detail).toBe((m[1] as RegExp).source);
  });

  it('U10 configured markers replace the defaults; an empty string marker matches nothing; a RegExp is tested on the whole text, again and again', () => {
    const g = /relay/gu;
    const opts = { notPersonMarkers: ['', '>> bot:', g] };
    expect(classifyClaudeEntry(user('[Inter-session message] hi'), opts).human).toBe(true);
    expect(why(classifyClaudeEntry(user('plain words'), opts))).toEqual({ human: true, reason: 'fallback', text: 'plain words' });
    expect(why(classifyClaudeEntry(user('  >> bot: done'), opts))).toEqual(no('machine', 'not-person-marker', '>> bot:'));
    // The RegExp sees the whole text, not only its start, and a global one matches every time.
    for (let i = 0; i < 3; i++) expect(why(classifyClaudeEntry(user('text via relay'), opts))).toEqual(no('machine', 'not-person-marker', 'relay'));
    expect(textRule('text via relay', [/^relay/u])).toBeUndefined();
  });
});

describe('U4 U10 the typed form of a slash command', () => {
  it('U4 name and args become /name args, whatever the tag order; a name without a slash gets one', () => {
    expect(typedCommandText('<command-message>review is running</command-message>\n<command-name>/review</command-name>\n<command-args> 12 </command-args>')).toBe('/review 12');
    expect(typedCommandText('<command-args>a\nb</command-args><command-name>\n review\n</command-name>')).toBe('/review a\nb');
    expect(typedCommandText('<command-name>/model</command-name>')).toBe('/model');
    expect(typedCommandText('<command-name>/model</command-name><command-args>   </command-args>')).toBe('/model');
    expect(typedCommandText('<command-name>/a</command-name><command-name>/b</command-name>')).toBe('/a');
    expect(typedCommandText('<command-name>/a</command-name><command-args>1</command-args> <command-args>2</command-args>')).toBe('/a 1');
  });

  it('U4 without a (non-empty) command name the text is kept as typed', () => {
    expect(typedCommandText('no tags here')).toBeUndefined();
    expect(typedCommandText('<command-name>  </command-name>')).toBeUndefined();
    expect(typedCommandText('<command-name>/x')).toBeUndefined();
    const c = classifyClaudeEntry(user('<command-name> </command-name> typed'));
    expect(c.human && c.text).toBe('<command-name> </command-name> typed');
    const d = classifyClaudeEntry(user('<command-name>/clear</command-name>'));
    expect(d.human && d.text).toBe('/clear');
  });
});

describe('U10 content parts and time', () => {
  it('U10 text blocks (and bare strings) join with newlines; four image block types count; a tool_result block marks it a tool result', () => {
    expect(contentParts('hi')).toEqual({ text: 'hi', images: 0, tool: false });
    expect(contentParts(['raw', { type: 'text', text: 'a' }, { type: 'input_text', text: 'b' }, { type: 'text', text: 5 }, { type: 'other', text: 'c' }, null, 7])).toEqual({ text: 'raw\na\nb', images: 0, tool: false });
    expect(contentParts([{ type: 'image' }, { type: 'input_image' }, { type: 'localImage' }, { type: 'local_image' }, { type: 'img' }])).toEqual({ text: '', images: 4, tool: false });
    expect(contentParts([{ type: 'text', text: 'x' }, { type: 'tool_result', content: 'y' }])).toEqual({ text: 'x', images: 0, tool: true });
    expect(contentParts([])).toEqual({ text: '', images: 0, tool: false });
    for (const bad of [undefined, null, 5, { type: 'text', text: 'x' }]) expect(contentParts(bad)).toBeUndefined();
  });

  it('U5 a turn time is a finite number or a parsable date string; anything else is no time', () => {
    expect(parseTime(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(parseTime(0)).toBe(0);
    expect(parseTime(T)).toBe(Date.parse(T));
    for (const bad of [Number.NaN, Infinity, -Infinity, 'yesterday', '', true, null, undefined, {}, [T]]) expect(parseTime(bad)).toBeUndefined();
    const at = (timestamp: unknown) => {
      const c = classifyClaudeEntry(user('x', { timestamp }));
      return c.human ? c.occurredAt : 'not human';
    };
    expect(at(T)).toBe(Date.parse(T));
    expect(at(12345)).toBe(12345);
    expect(at('garbage')).toBeUndefined();
    expect('occurredAt' in classifyClaudeEntry(user('x', { timestamp: 'garbage' }))).toBe(false);
  });

  it('U10 an empty turn is no text; whitespace with an image is an image-only turn', () => {
    expect(why(classifyClaudeEntry(user(' \n\t')))).toEqual(no('machine', 'no-text'));
    expect(why(classifyClaudeEntry(user([])))).toEqual(no('machine', 'no-text'));
    expect(classifyClaudeEntry(user([{ type: 'text', text: '  ' }, { type: 'image' }]))).toMatchObject({ human: true, text: '  ', images: 1 });
  });
});

describe('U10 1: structure of Claude Code records', () => {
  it('U10 only user and attachment records can be human; the record type is the detail', () => {
    expect(why(classifyClaudeEntry({ type: 'assistant', message: { role: 'user', content: 'x' } }))).toEqual(no('machine', 'assistant', 'assistant'));
    expect(why(classifyClaudeEntry({ type: 'system', subtype: 'compact_boundary' }))).toEqual(no('meta', 'record', 'system'));
    expect(why(classifyClaudeEntry({ type: 5, message: { role: 'user', content: 'x' } }))).toEqual(no('meta', 'record'));
    expect(why(classifyClaudeEntry({ message: { role: 'user', content: 'x' } }))).toEqual(no('meta', 'record'));
    for (const v of [null, [], 'user', 3]) expect(why(classifyClaudeEntry(v))).toEqual(no('meta', 'record'));
  });

  it('U10 isSidechain, isMeta, compaction flags, turnCompanion and toolUseResult exclude, only when set to true / present', () => {
    expect(why(classifyClaudeEntry(user('x', { isSidechain: true })))).toEqual(no('machine', 'sidechain'));
    expect(classifyClaudeEntry(user('x', { isSidechain: 'true' })).human).toBe(true);
    expect(why(classifyClaudeEntry(user('x', { isMeta: true })))).toEqual(no('meta', 'meta'));
    expect(classifyClaudeEntry(user('x', { isMeta: false })).human).toBe(true);
    expect(why(classifyClaudeEntry(user('x', { isCompactSummary: true })))).toEqual(no('meta', 'compact-summary'));
    expect(why(classifyClaudeEntry(user('x', { isVisibleInTranscriptOnly: true })))).toEqual(no('meta', 'compact-summary'));
    expect(classifyClaudeEntry(user('x', { isCompactSummary: 1, isVisibleInTranscriptOnly: 'yes' })).human).toBe(true);
    expect(why(classifyClaudeEntry(user('x', { turnCompanion: true })))).toEqual(no('meta', 'meta', 'turnCompanion'));
    expect(classifyClaudeEntry(user('x', { turnCompanion: false })).human).toBe(true);
    expect(why(classifyClaudeEntry(user('x', { toolUseResult: null })))).toEqual(no('machine', 'tool-result'));
    expect(why(classifyClaudeEntry(user('x', { toolUseResult: '' })))).toEqual(no('machine', 'tool-result'));
    expect(why(classifyClaudeEntry(user([{ type: 'tool_result', content: 'ok' }])))).toEqual(no('machine', 'tool-result'));
  });

  it('U10 structure beats a human origin', () => {
    for (const extra of [{ isSidechain: true }, { isMeta: true }, { isCompactSummary: true }, { turnCompanion: true }, { toolUseResult: {} }]) {
      expect(classifyClaudeEntry(user('x', { origin: { kind: 'human' }, ...extra })).human, JSON.stringify(extra)).toBe(false);
    }
  });

  it('U10 a message that is not an object, or whose role is not user, is not a turn; a missing role is a user turn', () => {
    expect(why(classifyClaudeEntry({ type: 'user', message: 'hi' }))).toEqual(no('machine', 'no-text'));
    expect(why(classifyClaudeEntry({ type: 'user' }))).toEqual(no('machine', 'no-text'));
    expect(why(classifyClaudeEntry({ type: 'user', message: { role: 'assistant', content: 'x' } }))).toEqual(no('machine', 'assistant'));
    expect(why(classifyClaudeEntry({ type: 'user', message: { content: 'x' } }))).toEqual({ human: true, reason: 'fallback', text: 'x' });
    expect(why(classifyClaudeEntry({ type: 'user', message: { role: 'user', content: 42 } }))).toEqual(no('machine', 'no-text'));
  });

  it('U6 U10 records of a copied session are resumed history (meta); other sessions and non-string ids are not', () => {
    const opts = { copiedFrom: ['old-1', 'old-2'] };
    expect(why(classifyClaudeEntry(user('x', { sessionId: 'old-2' }), opts))).toEqual(no('meta', 'resumed-history', 'old-2'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'q' }, { sessionId: 'old-1' }), opts))).toEqual(no('meta', 'resumed-history', 'old-1'));
    expect(classifyClaudeEntry(user('x', { sessionId: 'new' }), opts).human).toBe(true);
    expect(classifyClaudeEntry(user('x', { sessionId: ['old-1'] }), opts).human).toBe(true);
    expect(classifyClaudeEntry(user('x', { sessionId: 'old-1' })).human).toBe(true);
    expect(why(classifyClaudeEntry(user('x', { sessionId: 'old-1', isSidechain: true }), opts))).toEqual(no('machine', 'sidechain'));
  });
});

describe('U10 2: provenance of user records', () => {
  it('U10 origin.kind human counts; any other kind, or an origin without a kind, is machine; origin wins over promptSource', () => {
    expect(why(classifyClaudeEntry(user('x', { origin: { kind: 'human' }, promptSource: 'system' })))).toEqual({ human: true, reason: 'origin:human', text: 'x' });
    expect(why(classifyClaudeEntry(user('x', { origin: { kind: 'peer' }, promptSource: 'typed' })))).toEqual(no('machine', 'origin', 'peer'));
    expect(why(classifyClaudeEntry(user('x', { origin: {} })))).toEqual(no('machine', 'origin', '(no kind)'));
    expect(why(classifyClaudeEntry(user('x', { origin: { kind: 7 } })))).toEqual(no('machine', 'origin', '(no kind)'));
    // An origin that is not an object is no provenance at all.
    expect(why(classifyClaudeEntry(user('x', { origin: 'human' })))).toEqual({ human: true, reason: 'fallback', text: 'x' });
    expect(why(classifyClaudeEntry(user('x', { origin: null, promptSource: 'system' })))).toEqual(no('machine', 'prompt-source', 'system'));
  });

  it('U10 without origin, promptSource system is machine; other sources name the reason', () => {
    expect(why(classifyClaudeEntry(user('x', { promptSource: 'system' })))).toEqual(no('machine', 'prompt-source', 'system'));
    expect(why(classifyClaudeEntry(user('x', { promptSource: 'typed' })))).toEqual({ human: true, reason: 'prompt-source:typed', text: 'x' });
    expect(why(classifyClaudeEntry(user('x', { promptSource: 'sdk' })))).toEqual({ human: true, reason: 'prompt-source:sdk', text: 'x' });
    expect(why(classifyClaudeEntry(user('x', { promptSource: 3 })))).toEqual({ human: true, reason: 'fallback', text: 'x' });
  });
});

describe('U10 queued commands (typed while the agent is busy)', () => {
  it('U10 prompt and bash modes count; their time is the record time, else the attachment time', () => {
    expect(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p' }, { timestamp: T }))).toMatchObject({ human: true, reason: 'queued-command', text: 'p', occurredAt: Date.parse(T) });
    expect(classifyClaudeEntry(queued({ commandMode: 'bash', prompt: 'ls', timestamp: T }))).toMatchObject({ human: true, text: 'ls', occurredAt: Date.parse(T) });
    expect(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p', timestamp: '2020-01-01T00:00:00.000Z' }, { timestamp: T }))).toMatchObject({ occurredAt: Date.parse(T) });
    expect(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: [{ type: 'text', text: 'a' }, { type: 'image' }] }))).toMatchObject({ human: true, text: 'a', images: 1 });
  });

  it('U10 other attachments are meta (named by their type); a malformed attachment is meta without a name', () => {
    expect(why(classifyClaudeEntry({ type: 'attachment', attachment: { type: 'file', path: '/x' } }))).toEqual(no('meta', 'attachment', 'file'));
    expect(why(classifyClaudeEntry({ type: 'attachment', attachment: { type: 3 } }))).toEqual(no('meta', 'attachment'));
    expect(why(classifyClaudeEntry({ type: 'attachment', attachment: 'queued_command' }))).toEqual(no('meta', 'attachment'));
    expect(why(classifyClaudeEntry({ type: 'attachment' }))).toEqual(no('meta', 'attachment'));
  });

  it('U10 isMeta on the attachment or on the record excludes', () => {
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p', isMeta: true })))).toEqual(no('meta', 'meta', 'queued_command'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p' }, { isMeta: true })))).toEqual(no('meta', 'meta', 'queued_command'));
    expect(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p', isMeta: 'true' })).human).toBe(true);
  });

  it('U10 origin on the attachment, else on the record, decides first; other modes are machine; no mode counts only with a human origin', () => {
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p', origin: { kind: 'coordinator' } }, { origin: { kind: 'human' } })))).toEqual(no('machine', 'origin', 'coordinator'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 'p' }, { origin: { kind: 'peer' } })))).toEqual(no('machine', 'origin', 'peer'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 'task-notification', prompt: 'p' })))).toEqual(no('machine', 'queued-mode', 'task-notification'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 7, prompt: 'p', origin: { kind: 'human' } })))).toEqual(no('machine', 'queued-mode', '7'));
    expect(why(classifyClaudeEntry(queued({ prompt: 'p' })))).toEqual(no('machine', 'queued-mode', '(none)'));
    expect(why(classifyClaudeEntry(queued({ prompt: 'p', origin: { kind: 'human' } })))).toEqual({ human: true, reason: 'queued-command', text: 'p' });
    expect(why(classifyClaudeEntry(queued({ prompt: 'p' }, { origin: { kind: 'human' } })))).toEqual({ human: true, reason: 'queued-command', text: 'p' });
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: 7 })))).toEqual(no('machine', 'no-text'));
    expect(why(classifyClaudeEntry(queued({ commandMode: 'prompt', prompt: '<task-notification>done' })))).toEqual(no('machine', 'task-notification', '<task-notification>'));
  });
});

describe('U6 lines', () => {
  it('U6 leading NUL padding is removed; blank and non-JSON lines are meta', () => {
    const rec = JSON.stringify(user('padded'));
    expect(classifyClaudeLine(`\u0000\u0000${rec}`)).toMatchObject({ human: true, text: 'padded' });
    expect(why(classifyClaudeLine('\u0000\u0000'))).toEqual(no('meta', 'blank'));
    expect(why(classifyClaudeLine(' \t '))).toEqual(no('meta', 'blank'));
    expect(why(classifyClaudeLine(`x\u0000${rec}`))).toEqual(no('meta', 'not-json'));
    expect(why(classifyClaudeLine(`${rec} trailing`))).toEqual(no('meta', 'not-json'));
    expect(classifyClaudeLine(` ${rec} `)).toMatchObject({ human: true });
    // Only leading padding goes: a NUL inside the record leaves it broken.
    expect(why(classifyClaudeLine(`${rec.slice(0, 15)}\u0000${rec.slice(15)}`))).toEqual(no('meta', 'not-json'));
  });

  it('U10 options reach the classifier through a line', () => {
    const rec = JSON.stringify(user('[Inter-session message] hi', { sessionId: 's' }));
    expect(classifyClaudeLine(rec).human).toBe(false);
    expect(classifyClaudeLine(rec, { notPersonMarkers: [] }).human).toBe(true);
    expect(classifyClaudeLine(rec, { notPersonMarkers: [], copiedFrom: ['s'] }).human).toBe(false);
  });
});

describe('U10 Codex CLI rollouts', () => {
  const ev = (payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ timestamp: T, type: 'event_msg', payload, ...extra });
  const item = (payload: Record<string, unknown>) => ({ timestamp: T, type: 'response_item', payload });

  it('U10 user_message counts with its images and time; kind plain or absent counts, any other kind is injected', () => {
    expect(classifyCodexEntry(ev({ type: 'user_message', message: 'do it' }))).toEqual({ human: true, verdict: 'human', reason: 'user-message', text: 'do it', images: 0, occurredAt: Date.parse(T) });
    expect(classifyCodexEntry(ev({ type: 'user_message', message: 'do it', kind: 'plain' })).human).toBe(true);
    expect(classifyCodexEntry(ev({ type: 'user_message', message: 'do it', kind: 3 })).human).toBe(true);
    expect(why(classifyCodexEntry(ev({ type: 'user_message', message: 'ctx', kind: 'environment_context' })))).toEqual(no('machine', 'injected-context', 'kind environment_context'));
    expect(classifyCodexEntry(ev({ type: 'user_message', message: 7, images: ['a', 'b'], local_images: ['c'] }))).toMatchObject({ human: true, text: '', images: 3 });
    expect(classifyCodexEntry(ev({ type: 'user_message', message: 'x', images: 'a', local_images: { n: 1 } }))).toMatchObject({ images: 0 });
    expect(why(classifyCodexEntry(ev({ type: 'user_message' })))).toEqual(no('machine', 'no-text'));
  });

  it('U10 the injected forms Codex writes as user text are never a person, after leading whitespace', () => {
    for (const form of CODEX_INJECTED_FORMS) {
      expect(why(classifyCodexEntry(ev({ type: 'user_message', message: `\n  ${form} /repo` }))), form).toEqual(no('machine', 'injected-context', form));
      expect(why(classifyCodexEntry({ type: 'message', role: 'user', content: [{ type: 'input_text', text: ` ${form}` }] })), form).toEqual(no('machine', 'injected-context', form));
      expect(classifyCodexEntry(ev({ type: 'user_message', message: `quote ${form}` })).human).toBe(true);
    }
  });

  it('U10 markers apply to Codex turns too', () => {
    expect(why(classifyCodexEntry(ev({ type: 'user_message', message: '[Inter-session message] x' })))).toEqual(no('machine', 'not-person-marker', '[Inter-session message]'));
    expect(classifyCodexEntry(ev({ type: 'user_message', message: '[Inter-session message] x' }), { notPersonMarkers: [] }).human).toBe(true);
  });

  it('U10 other events: agent messages and reasoning are the assistant; the rest is bookkeeping named by its type', () => {
    expect(why(classifyCodexEntry(ev({ type: 'agent_message', message: 'hi' })))).toEqual(no('machine', 'assistant', 'agent_message'));
    expect(why(classifyCodexEntry(ev({ type: 'agent_reasoning', text: 'hm' })))).toEqual(no('machine', 'assistant', 'agent_reasoning'));
    expect(why(classifyCodexEntry(ev({ type: 'token_count' })))).toEqual(no('meta', 'record', 'token_count'));
    expect(why(classifyCodexEntry(ev({})))).toEqual(no('meta', 'record', 'undefined'));
  });

  it('U10 response items: the user copy is model input (meta), tool outputs are tool results, the rest the assistant', () => {
    expect(why(classifyCodexEntry(item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'do it' }] })))).toEqual(
      no('meta', 'model-input', 'response_item user message (the typed turn is its event_msg)'),
    );
    expect(why(classifyCodexEntry(item({ type: 'message', role: 'assistant', content: [] })))).toEqual(no('machine', 'assistant'));
    expect(why(classifyCodexEntry(item({ type: 'function_call_output', output: 'x' })))).toEqual(no('machine', 'tool-result', 'function_call_output'));
    expect(why(classifyCodexEntry(item({ type: 'custom_tool_call_output', output: 'x' })))).toEqual(no('machine', 'tool-result', 'custom_tool_call_output'));
    expect(why(classifyCodexEntry(item({ type: 'function_call', name: 'shell' })))).toEqual(no('machine', 'assistant', 'function_call'));
    expect(why(classifyCodexEntry(item({ type: 'reasoning' })))).toEqual(no('machine', 'assistant', 'reasoning'));
    // Only a user *message* is the model-input copy; a tool output marked with the user role is a tool result.
    expect(why(classifyCodexEntry(item({ type: 'function_call_output', role: 'user', output: 'x' })))).toEqual(no('machine', 'tool-result', 'function_call_output'));
  });

  it('U10 envelope bookkeeping is meta named by its type; a non-object is meta', () => {
    for (const type of ['session_meta', 'turn_context', 'compacted']) expect(why(classifyCodexEntry({ timestamp: T, type, payload: { id: 'x' } }))).toEqual(no('meta', 'record', type));
    expect(why(classifyCodexEntry({ type: 9, payload: {} }))).toEqual(no('meta', 'record'));
    for (const v of [null, 'x', [], 1]) expect(why(classifyCodexEntry(v))).toEqual(no('meta', 'record'));
  });

  it('U10 pre-envelope rollouts: user messages count, assistant messages and tool outputs do not', () => {
    expect(classifyCodexEntry({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old prompt' }, { type: 'input_image' }], timestamp: T })).toEqual({
      human: true,
      verdict: 'human',
      reason: 'legacy-message',
      text: 'old prompt',
      images: 1,
      occurredAt: Date.parse(T),
    });
    expect(why(classifyCodexEntry({ type: 'message', role: 'user', content: 5 }))).toEqual(no('machine', 'no-text'));
    expect(why(classifyCodexEntry({ type: 'message', role: 'assistant', content: 'x' }))).toEqual(no('machine', 'assistant'));
    expect(why(classifyCodexEntry({ type: 'function_call_output', output: 'x' }))).toEqual(no('machine', 'tool-result', 'function_call_output'));
    expect(why(classifyCodexEntry({ type: 'reasoning' }))).toEqual(no('meta', 'record', 'reasoning'));
    expect(why(classifyCodexEntry({ role: 'user', content: 'x' }))).toEqual(no('meta', 'record'));
    expect(why(classifyCodexEntry({ type: 7 }))).toEqual(no('meta', 'record'));
    // A payload that is not an object: read as a pre-envelope line.
    expect(classifyCodexEntry({ type: 'message', role: 'user', content: 'x', payload: 'p' }).human).toBe(true);
  });
});
