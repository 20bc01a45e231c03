import { describe, expect, it } from 'vitest';
import { CODEX_INJECTED_FORMS, classifyCodexEntry, codexMachineDriver, codexPersonText, type LineClass } from '../../src/core/upstream/index.js';

/**
 * U10: current Codex rollouts. Paginated history (the default for interactive sessions in the
 * versions public sources date to 0.147-0.149 and later) writes a typed prompt as `event_msg`
 * `item_completed` with a `UserMessage` item, never as the legacy `user_message` event.
 */
const T = '2026-09-01T10:00:00.000Z';
const completed = (item: Record<string, unknown>, inner = 'item_completed') => ({ timestamp: T, type: 'event_msg', payload: { type: inner, thread_id: 't', turn_id: 'u1', item } });
const userItem = (content: unknown[]) => completed({ type: 'UserMessage', id: 'm1', content });
const why = (c: LineClass) => (c.human ? { human: true as const, text: c.text, images: c.images, reason: c.reason } : { human: false as const, verdict: c.verdict, reason: c.reason, detail: c.detail });

describe('U10 Codex paginated rollouts: item_completed / UserMessage', () => {
  it('U10 a completed UserMessage is a person\'s turn: text parts joined, image and local_image parts counted, its time kept', () => {
    const c = classifyCodexEntry(userItem([{ type: 'text', text: 'fix the flaky test', text_elements: [] }, { type: 'image', image_url: 'data:image/png;base64,AA' }, { type: 'local_image', path: '/tmp/a.png' }]));
    expect(c).toEqual({ human: true, verdict: 'human', reason: 'user-message-item', text: 'fix the flaky test', images: 2, occurredAt: Date.parse(T) });
    // Part and item types as other builds spell them.
    expect(why(classifyCodexEntry(completed({ type: 'userMessage', content: [{ type: 'Text', text: 'a' }, { type: 'text', text: 'b' }, { type: 'localImage', path: 'x' }] })))).toEqual({ human: true, text: 'a\nb', images: 1, reason: 'user-message-item' });
    expect(why(classifyCodexEntry(userItem([{ type: 'image', image_url: 'x' }])))).toEqual({ human: true, text: '', images: 1, reason: 'user-message-item' });
  });

  it('U10 a started or updated UserMessage is the same turn in flight: not counted, so nothing counts twice', () => {
    for (const inner of ['item_started', 'item_updated']) {
      expect(why(classifyCodexEntry(completed({ type: 'UserMessage', content: [{ type: 'text', text: 'x' }] }, inner)))).toMatchObject({ human: false, verdict: 'meta', reason: 'record' });
    }
  });

  it('U10 other completed items are the agent: agent messages, reasoning, commands, file changes', () => {
    expect(why(classifyCodexEntry(completed({ type: 'AgentMessage', content: [{ type: 'Text', text: 'done' }] })))).toMatchObject({ human: false, verdict: 'machine', reason: 'assistant' });
    expect(why(classifyCodexEntry(completed({ type: 'Reasoning' })))).toMatchObject({ human: false, reason: 'assistant' });
    expect(why(classifyCodexEntry(completed({ type: 'CommandExecution', command: 'ls' })))).toMatchObject({ human: false, verdict: 'machine', reason: 'tool-result' });
    expect(why(classifyCodexEntry(completed('x' as unknown as Record<string, unknown>)))).toMatchObject({ human: false, verdict: 'machine' });
  });

  it('U10 the injected-context filter applies part by part: an all-injected UserMessage is not a person, a mixed one keeps the typed part', () => {
    expect(why(classifyCodexEntry(userItem([{ type: 'text', text: '<environment_context>\n<cwd>/w</cwd>\n</environment_context>' }])))).toEqual({
      human: false,
      verdict: 'machine',
      reason: 'injected-context',
      detail: '<environment_context>',
    });
    expect(why(classifyCodexEntry(userItem([{ type: 'text', text: '<skill>\n<name>x</name>\n</skill>' }, { type: 'text', text: 'run the skill on src/' }])))).toMatchObject({ human: true, text: 'run the skill on src/' });
    // Case is ignored in the form, as the client does.
    expect(classifyCodexEntry(userItem([{ type: 'text', text: '  <TURN_ABORTED>\nThe user interrupted\n</TURN_ABORTED>' }])).human).toBe(false);
  });

  it('U10 the legacy user_message path is unchanged, and the response_item copy of a turn never counts', () => {
    expect(why(classifyCodexEntry({ timestamp: T, type: 'event_msg', payload: { type: 'user_message', message: 'do it', local_images: ['/a.png'] } }))).toEqual({ human: true, text: 'do it', images: 1, reason: 'user-message' });
    expect(classifyCodexEntry({ timestamp: T, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'do it' }] } }).human).toBe(false);
  });
});

describe('U10 Codex injected context and IDE prefixes', () => {
  it('U10 every listed form, at the start after whitespace, in any ASCII case, is injected; quoted later it is not', () => {
    expect(CODEX_INJECTED_FORMS.length).toBeGreaterThanOrEqual(15);
    for (const form of CODEX_INJECTED_FORMS) {
      expect(codexPersonText(`\n ${form}\nbody`), form).toBeUndefined();
      expect(codexPersonText(`${form.toUpperCase()} body`), form).toBeUndefined();
      expect(codexPersonText(`please explain ${form}`), form).toBe(`please explain ${form}`);
    }
    // A global AGENTS.md has no directory after the heading.
    expect(codexPersonText('# AGENTS.md instructions\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>')).toBeUndefined();
  });

  it('U10 an IDE client\'s context block: the person\'s words are what follows "## My request for Codex:"; without it the block is injected', () => {
    const ide = '# Context from my IDE setup:\n\n## Active file: src/pay.ts\n\n## Open tabs:\n- pay.ts\n\n## My request for Codex:\nadd retry to charge\n';
    expect(codexPersonText(ide)).toBe('add retry to charge');
    expect(codexPersonText('# Files mentioned by the user:\n\n## a.png: /tmp/a.png\n\n## My request for Codex:\nlook at this')).toBe('look at this');
    expect(codexPersonText('# Context from my IDE setup:\n\n## Active file: a.ts\n')).toBeUndefined();
    expect(why(classifyCodexEntry({ timestamp: T, type: 'event_msg', payload: { type: 'user_message', message: ide } }))).toMatchObject({ human: true, text: 'add retry to charge' });
    expect(why(classifyCodexEntry(userItem([{ type: 'text', text: '# Context from my IDE setup:\n\n## Active file: a.ts\n' }])))).toMatchObject({ human: false, reason: 'injected-context', detail: 'IDE context' });
  });

  it('U10 pre-envelope messages are judged part by part: AGENTS.md plus environment in one message is injected', () => {
    const both = { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>' }, { type: 'input_text', text: '<environment_context>\n</environment_context>' }] };
    expect(classifyCodexEntry(both).human).toBe(false);
    expect(why(classifyCodexEntry({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context></environment_context>' }, { type: 'input_text', text: 'go' }] }))).toMatchObject({ human: true, text: 'go' });
  });
});

describe('U10 Codex threads no person drives', () => {
  const meta = (payload: Record<string, unknown>) => ({ timestamp: T, type: 'session_meta', payload: { id: 'c1', cwd: '/w', cli_version: '0.155.0', ...payload } });
  it('U10 a spawned sub-agent (source.subagent, thread_source "subagent") and an exec session are machine-driven', () => {
    expect(codexMachineDriver(meta({ source: { subagent: { thread_spawn: { parent_thread_id: 'p', depth: 1 } } } }))).toBe('sub-agent thread (session_meta.source.subagent: thread_spawn)');
    expect(codexMachineDriver(meta({ source: { subagent: 'review' } }))).toBe('sub-agent thread (session_meta.source.subagent: review)');
    expect(codexMachineDriver(meta({ source: 'cli', thread_source: 'subagent' }))).toBe('sub-agent thread (session_meta.thread_source "subagent")');
    expect(codexMachineDriver(meta({ source: 'exec' }))).toBe('exec session (session_meta.source "exec")');
  });

  it('U10 interactive sources, a person\'s fork, a missing source and non-meta records are not', () => {
    for (const source of ['cli', 'vscode', 'mcp', undefined, { custom: 'desktop' }]) expect(codexMachineDriver(meta({ source })), JSON.stringify(source)).toBeUndefined();
    expect(codexMachineDriver(meta({ source: 'cli', forked_from_id: 'p' }))).toBeUndefined();
    expect(codexMachineDriver({ id: 'x', timestamp: T, instructions: null })).toBeUndefined();
    expect(codexMachineDriver({ type: 'event_msg', payload: { source: 'exec' } })).toBeUndefined();
    expect(codexMachineDriver(null)).toBeUndefined();
  });
});
