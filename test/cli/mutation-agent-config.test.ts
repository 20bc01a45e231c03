import { createHash } from 'node:crypto';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { describe, expect, it } from 'vitest';
import {
  codexHandler,
  codexHookHash,
  codexRecordedTrust,
  codexSnakeEvent,
  codexTrustFor,
  ConfigFileError,
  editAllowedToolsText,
  editCodexToml,
  editHooksText,
  editMcpText,
  editOpencodeMcpText,
  editQwenApprovalsText,
  handlerPlace,
  hookHandlers,
  hookShape,
  hookTimeout,
  isBareMcpEntry,
  mcpServerEntry,
  mcpServerName,
  opencodeMcpCommand,
  opencodeMcpEntry,
  opencodePluginText,
  parseOpencodePluginText,
  qwenApproval,
  qwenMcpApprovalHash,
  readJsonConfig,
  readTomlConfig,
} from '../../src/cli/agent-config.js';

/**
 * T45-T46, T49, T52, T55, T58, T63-T64: how init reads and edits each agent CLI's files, one
 * decision at a time, with the exact text or value each edit leaves.
 */
const own = (c: unknown) => typeof c === 'string' && c.startsWith('KIT ');
const JSONC = { comments: true };

describe('T45 reading a CLI\'s files', () => {
  it('T45 JSON: absent or blank is empty; an error is named at its line and column; only an object will do', () => {
    expect(readJsonConfig('f', undefined)).toEqual({});
    expect(readJsonConfig('f', ' \n')).toEqual({});
    expect(readJsonConfig('f', '{"a": 1}')).toEqual({ a: 1 });
    const error = (text: string, flavor = {}) => {
      try {
        readJsonConfig('/x/settings.json', text, { comments: false, ...flavor });
      } catch (e) {
        return e as ConfigFileError;
      }
      throw new Error('no error');
    };
    const comment = error('{\n  "a": 1 // why\n}');
    expect(comment).toBeInstanceOf(ConfigFileError);
    expect(comment.name).toBe('ConfigFileError');
    expect(comment.message).toBe('/x/settings.json:2:10: not valid JSON (comments are not allowed in this file)');
    expect([comment.path, comment.line, comment.column, comment.reason]).toEqual(['/x/settings.json', 2, 10, 'not valid JSON (comments are not allowed in this file)']);
    expect(error('{"a": 1,}').message).toBe('/x/settings.json:1:9: not valid JSON (PropertyNameExpected)');
    expect(error('[1]').message).toBe('/x/settings.json:1:1: must hold a JSON object');
    expect(error('"text"').message).toBe('/x/settings.json:1:1: must hold a JSON object');
    expect(readJsonConfig('f', '{\n  // ok here\n  "a": 1\n}', JSONC)).toEqual({ a: 1 });
    expect(readJsonConfig('f', '{"a": 1,}', { comments: true, trailingCommas: true })).toEqual({ a: 1 });
    expect(error('{"a": 1,}', { comments: true }).reason).toBe('not valid JSON (PropertyNameExpected)');
  });

  it('T45 TOML: absent is empty; an error is named at its line and column', () => {
    expect(readTomlConfig('c', undefined)).toEqual({});
    expect(readTomlConfig('c', 'a = 1\n')).toEqual({ a: 1 });
    try {
      readTomlConfig('/x/config.toml', 'a = 1\nb = = 2\n');
      throw new Error('no error');
    } catch (e) {
      const error = e as ConfigFileError;
      expect(error).toBeInstanceOf(ConfigFileError);
      expect(error.path).toBe('/x/config.toml');
      expect(error.line).toBe(2);
      // The parser counts columns from 0; the message from 1 (the second "=" of "b = = 2").
      expect(error.column).toBe(5);
      expect(error.message).toBe('/x/config.toml:2:5: not valid TOML (Unrecognized token type)');
      expect(error.reason).toMatch(/^not valid TOML \(.+\)$/);
      expect(error.reason).not.toContain('\n');
    }
  });
});

describe('T45 T52 hook handlers in the two shapes', () => {
  const grouped = {
    hooks: {
      Stop: [{ hooks: [{ type: 'command', command: 'a' }, 'junk', { type: 'command', command: 'b' }] }, 'junk', { matcher: 'x' }, { hooks: [{ command: 'c' }] }],
      Odd: 'not a list',
    },
  };

  it('T45 grouped: every handler object of every group, in order, where it sits', () => {
    const found = hookHandlers(grouped as never);
    expect(found.map((h) => [h.event, h.group, h.handler, h.command, handlerPlace(h)])).toEqual([
      ['Stop', 0, 0, 'a', 'Stop[0][0]'],
      ['Stop', 0, 2, 'b', 'Stop[0][2]'],
      ['Stop', 3, 0, 'c', 'Stop[3][0]'],
    ]);
    expect(hookHandlers(grouped as never, ['Odd', 'Missing'])).toEqual([]);
    expect(hookHandlers({ hooks: 'x' } as never)).toEqual([]);
    expect(hookHandlers({})).toEqual([]);
  });

  it('T52 flat: each handler object, its command in bash (or command where a person used that key)', () => {
    const flat = { hooks: { SessionStart: [{ type: 'command', bash: 'x' }, 7, { command: 'y' }, { bash: 'z', command: 'w' }, {}] } };
    expect(hookHandlers(flat as never, undefined, 'flat').map((h) => [h.group, h.handler, h.command, h.commandKey, handlerPlace(h)])).toEqual([
      [0, -1, 'x', 'bash', 'SessionStart[0]'],
      [2, -1, 'y', 'command', 'SessionStart[2]'],
      [3, -1, 'z', 'bash', 'SessionStart[3]'],
      [4, -1, undefined, 'bash', 'SessionStart[4]'],
    ]);
  });

  it('T45 shapes, names and bounds per CLI', () => {
    expect(hookShape('copilot')).toBe('flat');
    for (const cli of ['claude-code', 'codex', 'gemini', 'qwen', 'opencode'] as const) expect(hookShape(cli)).toBe('grouped');
    expect(mcpServerName('copilot')).toBe('session-state-kit-copilot');
    expect(mcpServerName('qwen')).toBe('session-state-kit');
    expect(hookTimeout('gemini')).toBe(30_000);
    expect(hookTimeout('codex')).toBe(30);
  });
});

describe('T45 editing the grouped hooks: one own handler per event, updated where it is', () => {
  it('T45 keeps the first own handler in place, fixes its type, command and timeout, keeps a person\'s keys, drops the other own ones', () => {
    const text = JSON.stringify(
      {
        hooks: {
          Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }],
          PreCompress: [{ matcher: 'm', hooks: [{ type: 'shell', command: 'KIT old', timeout: 5, note: 'keep' }, { type: 'command', command: 'KIT dup' }] }, { hooks: [{ type: 'command', command: 'KIT dup2' }] }],
        },
      },
      null,
      2,
    );
    const after = JSON.parse(editHooksText('f', text, 'gemini', 'KIT new', own)!) as { hooks: Record<string, unknown> };
    expect(after.hooks['Stop']).toEqual([{ hooks: [{ type: 'command', command: 'mine' }] }]);
    expect(after.hooks['PreCompress']).toEqual([{ matcher: 'm', hooks: [{ type: 'command', command: 'KIT new', timeout: 30_000, note: 'keep' }] }]);
    // The other events get a group each, after the person's.
    expect(Object.keys(after.hooks)).toEqual(['Stop', 'PreCompress', 'SessionStart', 'BeforeAgent', 'SessionEnd']);
    expect(after.hooks['SessionStart']).toEqual([{ hooks: [{ type: 'command', command: 'KIT new', timeout: 30_000 }] }]);
  });

  it('T45 appends a group to an event a person already has, and changes nothing that is already right', () => {
    const text = '{\n  "hooks": {\n    "SessionStart": [\n      { "hooks": [{ "type": "command", "command": "mine" }] }\n    ]\n  }\n}\n';
    const once = editHooksText('f', text, 'gemini', 'KIT x', own)!;
    const starts = (JSON.parse(once) as { hooks: { SessionStart: unknown[] } }).hooks.SessionStart;
    expect(starts).toEqual([{ hooks: [{ type: 'command', command: 'mine' }] }, { hooks: [{ type: 'command', command: 'KIT x', timeout: 30_000 }] }]);
    expect(editHooksText('f', once, 'gemini', 'KIT x', own)).toBe(once);
    expect(editHooksText('f', undefined, 'gemini', undefined, own)).toBeUndefined();
  });

  it('T45 uninstall removes every own handler, and the groups, events and table that only held them', () => {
    const installed = editHooksText('f', undefined, 'codex', 'KIT x', own)!;
    expect(editHooksText('f', installed, 'codex', undefined, own)).toBe('{}\n');
    const mixed = JSON.stringify({ other: 1, hooks: { Stop: [{ hooks: [{ command: 'mine' }] }], SessionStart: [{ hooks: [{ command: 'mine2' }, { command: 'KIT x' }] }, { hooks: [{ command: 'KIT x' }] }] } });
    expect(JSON.parse(editHooksText('f', mixed, 'codex', undefined, own)!)).toEqual({ other: 1, hooks: { Stop: [{ hooks: [{ command: 'mine' }] }], SessionStart: [{ hooks: [{ command: 'mine2' }] }] } });
    // A table the person had, emptied by the uninstall, stays only if it was not init's alone.
    expect(JSON.parse(editHooksText('f', JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ command: 'KIT x' }] }] } }), 'codex', undefined, own)!)).toEqual({});
  });

  it('T52 the flat shape: version on a new file, the person\'s command key kept, emptied hooks kept', () => {
    const made = JSON.parse(editHooksText('f', undefined, 'copilot', 'KIT c', own)!) as Record<string, unknown>;
    expect(made).toEqual({ version: 1, hooks: { SessionStart: [{ type: 'command', bash: 'KIT c', timeoutSec: 30 }], UserPromptSubmit: [{ type: 'command', bash: 'KIT c', timeoutSec: 30 }], PreCompact: [{ type: 'command', bash: 'KIT c', timeoutSec: 30 }] } });
    const mine = JSON.stringify({ version: 1, hooks: { SessionStart: [{ bash: 'mine' }, { type: 'x', command: 'KIT old', timeoutSec: 9 }, { bash: 'KIT dup' }] } });
    const edited = JSON.parse(editHooksText('f', mine, 'copilot', 'KIT c', own)!) as { hooks: Record<string, unknown> };
    expect(edited.hooks['SessionStart']).toEqual([{ bash: 'mine' }, { type: 'command', command: 'KIT c', timeoutSec: 30 }]);
    const gone = JSON.parse(editHooksText('f', mine, 'copilot', undefined, own)!) as { hooks: Record<string, unknown> };
    expect(gone).toEqual({ version: 1, hooks: { SessionStart: [{ bash: 'mine' }] } });
    expect(JSON.parse(editHooksText('f', JSON.stringify(made), 'copilot', undefined, own)!)).toEqual({ version: 1, hooks: {} });
    // An existing file gets no version it did not have.
    expect(JSON.parse(editHooksText('f', '{"hooks": {}}', 'copilot', 'KIT c', own)!)).not.toHaveProperty('version');
  });
});

describe('T45 T49 T64 the MCP entry and the allow rules', () => {
  const server = { command: '/n', args: ['/cli.js', 'mcp'] };

  it('T45 sets the entry, updates only what differs, removes it with the table it empties', () => {
    const made = editMcpText('f', undefined, server)!;
    expect(JSON.parse(made)).toEqual({ mcpServers: { 'session-state-kit': server } });
    expect(editMcpText('f', made, server)).toBe(made);
    const person = JSON.stringify({ mcpServers: { 'session-state-kit': { command: '/old', args: ['/cli.js', 'mcp'], env: { A: '1' } }, docs: { command: 'd' } } });
    expect(JSON.parse(editMcpText('f', person, server)!)).toEqual({ mcpServers: { 'session-state-kit': { command: '/n', args: ['/cli.js', 'mcp'], env: { A: '1' } }, docs: { command: 'd' } } });
    expect(JSON.parse(editMcpText('f', person, { command: '/old', args: ['x'] })!).mcpServers['session-state-kit']).toEqual({ command: '/old', args: ['x'], env: { A: '1' } });
    expect(JSON.parse(editMcpText('f', person, undefined)!)).toEqual({ mcpServers: { docs: { command: 'd' } } });
    expect(editMcpText('f', made, undefined)).toBe('{}\n');
    expect(editMcpText('f', '{"x": 1}', undefined)).toBe('{"x": 1}');
    expect(JSON.parse(editMcpText('f', made, server, undefined, 'other')!)).toEqual({ mcpServers: { 'session-state-kit': server, other: server } });
    expect(mcpServerEntry('f', made)).toEqual(server);
    expect(mcpServerEntry('f', '{"mcpServers": {"session-state-kit": 1}}')).toBeUndefined();
    expect(mcpServerEntry('f', '{"mcpServers": 1}')).toBeUndefined();
  });

  it('T49 adds exactly the rules, once, and takes them back with the array and table init made', () => {
    const rules = ['r1', 'r2'];
    const added = editAllowedToolsText('f', undefined, rules, true)!;
    expect(JSON.parse(added)).toEqual({ permissions: { allow: ['r1', 'r2'] } });
    expect(editAllowedToolsText('f', added, rules, true)).toBe(added);
    expect(editAllowedToolsText('f', added, rules, false)).toBe('{}\n');
    const person = JSON.stringify({ permissions: { allow: ['mine', 'r1'], deny: ['x'] } });
    expect(JSON.parse(editAllowedToolsText('f', person, rules, true)!)).toEqual({ permissions: { allow: ['mine', 'r1', 'r2'], deny: ['x'] } });
    expect(JSON.parse(editAllowedToolsText('f', person, rules, false)!)).toEqual({ permissions: { allow: ['mine'], deny: ['x'] } });
    expect(JSON.parse(editAllowedToolsText('f', JSON.stringify({ permissions: { allow: ['r1'], deny: ['x'] } }), rules, false)!)).toEqual({ permissions: { deny: ['x'] } });
    expect(editAllowedToolsText('f', '{"a": 1}', rules, false)).toBe('{"a": 1}');
  });

  it('T64 OpenCode\'s local entry: its command list set, a person\'s keys kept, the table it empties removed', () => {
    const made = editOpencodeMcpText('f', undefined, server, { comments: true, trailingCommas: true })!;
    expect(JSON.parse(made)).toEqual({ mcp: { 'session-state-kit': { type: 'local', command: ['/n', '/cli.js', 'mcp'] } } });
    expect(editOpencodeMcpText('f', made, server, JSONC)).toBe(made);
    const person = '{\n  // mine\n  "mcp": {\n    "session-state-kit": { "type": "remote", "command": ["/old"], "enabled": true },\n    "docs": { "type": "local", "command": ["d"] },\n  },\n}\n';
    const flavor = { comments: true, trailingCommas: true };
    expect(opencodeMcpEntry('f', editOpencodeMcpText('f', person, server, flavor), flavor)).toEqual({ type: 'local', command: ['/n', '/cli.js', 'mcp'], enabled: true });
    expect(editOpencodeMcpText('f', person, server, flavor)).toContain('// mine');
    expect(readJsonConfig('f', editOpencodeMcpText('f', person, undefined, flavor), flavor)).toEqual({ mcp: { docs: { type: 'local', command: ['d'] } } });
    expect(editOpencodeMcpText('f', made, undefined, flavor)).toBe('{}\n');
    expect(editOpencodeMcpText('f', '{}', undefined, flavor)).toBe('{}');
    expect(opencodeMcpCommand({ type: 'local', command: ['/n', 'a', 'b'] })).toEqual({ command: '/n', args: ['a', 'b'] });
    for (const bad of [undefined, 'x', { command: [] }, { command: '/n' }]) expect(opencodeMcpCommand(bad)).toBeUndefined();
  });
});

describe('T58 Qwen Code\'s approval of a project\'s server', () => {
  const entry = { command: '/n', args: ['mcp'] };
  const sha = (v: string) => createHash('sha256').update(v).digest('hex');

  it('T58 the hash covers what the server runs, with keys sorted, and leaves out its labels', () => {
    expect(qwenMcpApprovalHash(entry)).toBe(sha('{"args":["mcp"],"command":"/n"}'));
    expect(qwenMcpApprovalHash({ ...entry, scope: 'project', description: 'd', extensionName: 'e' })).toBe(qwenMcpApprovalHash(entry));
    expect(qwenMcpApprovalHash({ ...entry, env: { B: 1, A: 2 } })).toBe(sha('{"args":["mcp"],"command":"/n","env":{"A":2,"B":1}}'));
    expect(isBareMcpEntry({ ...entry, scope: 'project' }, entry)).toBe(true);
    expect(isBareMcpEntry({ ...entry, cwd: '/' }, entry)).toBe(false);
    expect(isBareMcpEntry({ command: '/other', args: ['mcp'] }, entry)).toBe(false);
    expect(isBareMcpEntry({ command: '/n', args: ['mcp', 'x'] }, entry)).toBe(false);
  });

  it('T58 approves exactly a hash, keeps the person\'s other decisions, and withdraws only its own approval', () => {
    const approved = editQwenApprovalsText('a', undefined, '/p', 'h1', () => false)!;
    expect(JSON.parse(approved)).toEqual({ '/p': { 'session-state-kit': { hash: 'h1', status: 'approved' } } });
    expect(qwenApproval('a', approved, '/p')).toEqual({ hash: 'h1', status: 'approved' });
    expect(qwenApproval('a', approved, '/q')).toBeUndefined();
    expect(editQwenApprovalsText('a', approved, '/p', 'h1', () => false)).toBe(approved);
    const person = JSON.stringify({ '/p': { docs: { hash: 'd', status: 'approved' } }, '/q': { 'session-state-kit': { hash: 'h1', status: 'approved' } } });
    const both = editQwenApprovalsText('a', person, '/p', 'h2', () => false)!;
    expect(JSON.parse(both)['/p']).toEqual({ docs: { hash: 'd', status: 'approved' }, 'session-state-kit': { hash: 'h2', status: 'approved' } });
    // Withdraw: only an approval, only one own() recognises; the project's other servers stay.
    expect(editQwenApprovalsText('a', both, '/p', undefined, () => false)).toBe(both);
    expect(JSON.parse(editQwenApprovalsText('a', both, '/p', undefined, (h) => h === 'h2')!)['/p']).toEqual({ docs: { hash: 'd', status: 'approved' } });
    expect(JSON.parse(editQwenApprovalsText('a', approved, '/p', undefined, () => true)!)).toEqual({});
    const rejected = JSON.stringify({ '/p': { 'session-state-kit': { hash: 'h1', status: 'rejected' } } });
    expect(editQwenApprovalsText('a', rejected, '/p', undefined, () => true)).toBe(rejected);
    expect(editQwenApprovalsText('a', undefined, '/p', undefined, () => true)).toBeUndefined();
    expect(qwenApproval('a', JSON.stringify({ '/p': { 'session-state-kit': { hash: 1, status: 'approved' } } }), '/p')).toBeUndefined();
  });
});

describe('T46 Codex: trust by the hash Codex computes, recorded in config.toml', () => {
  it('T46 event names, handlers as Codex reads them, and the hash of each', () => {
    expect(['SessionStart', 'UserPromptSubmit', 'Stop', 'PostCompact'].map(codexSnakeEvent)).toEqual(['session_start', 'user_prompt_submit', 'stop', 'post_compact']);
    expect(codexHandler({ type: 'command', command: 'c', timeout: 5, async: true, statusMessage: 's', extra: 1 })).toEqual({ command: 'c', timeout: 5, async: true, statusMessage: 's' });
    expect(codexHandler({ command: 'c', timeout: '5', async: 'yes', statusMessage: 3 })).toEqual({ command: 'c' });
    expect(codexHandler({ type: 'prompt', command: 'c' })).toBeUndefined();
    expect(codexHandler({ type: 'command' })).toBeUndefined();
    const hash = (identity: unknown) => `sha256:${createHash('sha256').update(JSON.stringify(identity)).digest('hex')}`;
    expect(codexHookHash('SessionStart', { command: 'c' })).toBe(hash({ event_name: 'session_start', hooks: [{ async: false, command: 'c', timeout: 600, type: 'command' }] }));
    expect(codexHookHash('SessionStart', { command: 'c', timeout: 30, async: true, statusMessage: 'm' }, 'startup')).toBe(
      hash({ event_name: 'session_start', hooks: [{ async: true, command: 'c', statusMessage: 'm', timeout: 30, type: 'command' }], matcher: 'startup' }),
    );
    // Codex ignores the matcher of these events, so the hash leaves it out.
    expect(codexHookHash('UserPromptSubmit', { command: 'c' }, 'x')).toBe(codexHookHash('UserPromptSubmit', { command: 'c' }));
    expect(codexHookHash('Stop', { command: 'c' }, 'x')).toBe(codexHookHash('Stop', { command: 'c' }));
    expect(codexHookHash('PostCompact', { command: 'c' }, 'x')).not.toBe(codexHookHash('PostCompact', { command: 'c' }));
  });

  it('T46 the trust entries of the handlers a test accepts, keyed by file, event and place', () => {
    const settings = { hooks: { SessionStart: [{ hooks: [{ command: 'mine' }] }, { matcher: 'resume', hooks: [{ type: 'command', command: 'KIT a', timeout: 30 }] }], Stop: [{ hooks: [{ type: 'prompt', command: 'KIT b' }] }] } };
    expect(codexTrustFor('/h.json', settings as never, (c) => c.startsWith('KIT'))).toEqual([{ key: '/h.json:session_start:1:0', hash: codexHookHash('SessionStart', { command: 'KIT a', timeout: 30 }, 'resume') }]);
    expect(codexRecordedTrust({ hooks: { state: { k1: { trusted_hash: 'h' }, k2: { trusted_hash: 2 }, k3: 'x' } } })).toEqual(new Map([['k1', 'h']]));
    expect(codexRecordedTrust({ hooks: 'x' }).size).toBe(0);
    expect(codexRecordedTrust({}).size).toBe(0);
  });

  it('T45 T46 T49 config.toml: the server set and removed, tools approved, trust set and dropped; the person\'s text kept', () => {
    const person = '# mine\nmodel = "m"   # the model\n\n[mcp_servers.docs]\ncommand = "d"\n';
    const server = { command: '/n', args: ['/cli.js', 'mcp'] };
    const withServer = editCodexToml('c', person, { mcp: server })!;
    expect(withServer.startsWith('# mine\nmodel = "m"   # the model\n\n[mcp_servers.docs]\ncommand = "d"\n')).toBe(true);
    expect(parseToml(withServer)).toEqual({ model: 'm', mcp_servers: { docs: { command: 'd' }, 'session-state-kit': server } });
    expect(editCodexToml('c', withServer, { mcp: server })).toBe(withServer);
    const tools = editCodexToml('c', withServer, { mcp: server, approveTools: ['t1', 't2'] })!;
    expect((parseToml(tools) as { mcp_servers: Record<string, unknown> }).mcp_servers['session-state-kit']).toEqual({ ...server, tools: { t1: { approval_mode: 'approve' }, t2: { approval_mode: 'approve' } } });
    expect(editCodexToml('c', withServer, { mcp: server, approveTools: [] })).toBe(withServer);
    const removed = editCodexToml('c', withServer, { mcp: null })!;
    expect(parseToml(removed)).toEqual({ model: 'm', mcp_servers: { docs: { command: 'd' } } });
    expect(removed).toContain('# the model');
    expect(parseToml(editCodexToml('c', editCodexToml('c', undefined, { mcp: server }), { mcp: null }) ?? '')).toEqual({});

    const trusted = editCodexToml('c', person, { trust: [{ key: 'k1', hash: 'h1' }, { key: 'k2', hash: 'h2' }] })!;
    expect(codexRecordedTrust(parseToml(trusted) as Record<string, unknown>)).toEqual(new Map([['k1', 'h1'], ['k2', 'h2']]));
    expect(trusted.startsWith(person)).toBe(true);
    const moved = editCodexToml('c', trusted, { trust: [{ key: 'k2', hash: 'h2b' }], dropTrust: (k) => k === 'k1' || k === 'k2' })!;
    expect(codexRecordedTrust(parseToml(moved) as Record<string, unknown>)).toEqual(new Map([['k2', 'h2b']]));
    const none = editCodexToml('c', trusted, { dropTrust: () => true })!;
    expect(parseToml(none)).toEqual({ model: 'm', mcp_servers: { docs: { command: 'd' } } });
    // A person's own key in a trust entry stays when init renews the hash.
    const extra = '[hooks.state."k1"]\ntrusted_hash = "old"\nnote = "mine"\n';
    expect(parseToml(editCodexToml('c', extra, { trust: [{ key: 'k1', hash: 'new' }] })!)).toEqual({ hooks: { state: { k1: { trusted_hash: 'new', note: 'mine' } } } });
  });
});

describe('T63 the OpenCode plugin file is init\'s only while it reads exactly as init writes it', () => {
  it('T63 written and read back; any other byte makes it a person\'s', () => {
    const text = opencodePluginText('file:///kit/o.js', '/p/"quoted".db');
    expect(text.split('\n')).toEqual([
      '// session-state-kit: this OpenCode takes part in the team\'s session state (PROTOCOL.md T61-T63).',
      '// Written by "session-state-kit init opencode", which owns this file while it reads exactly so;',
      '// "session-state-kit init opencode --uninstall" removes it.',
      'import { sessionStatePlugin } from "file:///kit/o.js";',
      'export const SessionStateKit = sessionStatePlugin({ db: "/p/\\"quoted\\".db" });',
      '',
    ]);
    expect(parseOpencodePluginText(text)).toEqual({ module: 'file:///kit/o.js', db: '/p/"quoted".db' });
    expect(parseOpencodePluginText(undefined)).toBeUndefined();
    expect(parseOpencodePluginText(`${text}// mine\n`)).toBeUndefined();
    expect(parseOpencodePluginText(text.replace('// Written', '// written'))).toBeUndefined();
    expect(parseOpencodePluginText(text.split('\n').slice(3).join('\n'))).toBeUndefined();
    expect(parseOpencodePluginText(text.replace('"file:///kit/o.js"', '"bad\\q"'))).toBeUndefined();
  });
});
