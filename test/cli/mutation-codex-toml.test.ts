import { parse as parseToml } from '@decimalturn/toml-patch';
import { describe, expect, it } from 'vitest';
import { editCodexToml } from '../../src/cli/agent-config.js';

/**
 * T45, T46: the Codex config.toml edit by its exact text. A table init adds goes at the end as its
 * own [section] after one blank line, in the file's own line ending, and every byte of the person's
 * text before it stays (leading blank lines, comments, a missing last newline); a change or a
 * removal edits in place; a parent written inline takes the new entry inline.
 */
const server = { command: '/usr/bin/node', args: ['/kit/cli.js', 'mcp', '--db', '/d.db'] };
const section = (eol: string) => ['[mcp_servers.session-state-kit]', 'command = "/usr/bin/node"', 'args = [ "/kit/cli.js", "mcp", "--db", "/d.db" ]'].join(eol);
const S = section('\n');

const cases: { name: string; text: string | undefined; change: Parameters<typeof editCodexToml>[2]; want: string }[] = [
  { name: 'no file', text: undefined, change: { mcp: server }, want: `${S}\n` },
  { name: 'an empty file', text: '', change: { mcp: server }, want: `${S}\n` },
  { name: 'only blank lines', text: '\n\n', change: { mcp: server }, want: `\n\n${S}\n` },
  { name: 'no newline at the end (none added)', text: '# mine\nmodel = "m"', change: { mcp: server }, want: `# mine\nmodel = "m"\n\n${S}` },
  { name: 'blank lines before the first line', text: '\n\n# mine\nmodel = "m"\n', change: { mcp: server }, want: `\n\n# mine\nmodel = "m"\n\n${S}\n` },
  { name: 'a blank line already at the end', text: 'model = "m"\n\n', change: { mcp: server }, want: `model = "m"\n\n${S}\n` },
  { name: 'CRLF line endings', text: '\r\n# mine\r\nmodel = "m"\r\n', change: { mcp: server }, want: `\r\n# mine\r\nmodel = "m"\r\n\r\n${section('\r\n')}\r\n` },
  { name: 'CRLF, a blank line at the end', text: 'model = "m"\r\n\r\n', change: { mcp: server }, want: `model = "m"\r\n\r\n${section('\r\n')}\r\n` },
  { name: 'another server as a table', text: '# top\n[mcp_servers.docs]\ncommand = "d"\n', change: { mcp: server }, want: `# top\n[mcp_servers.docs]\ncommand = "d"\n\n${S}\n` },
  {
    name: 'servers written inline (the entry goes inline)',
    text: 'mcp_servers = { docs = { command = "d" } }\n',
    change: { mcp: server },
    want: 'mcp_servers = { docs = { command = "d" }, session-state-kit = { command = "/usr/bin/node", args = [ "/kit/cli.js", "mcp", "--db", "/d.db" ] } }\n',
  },
  { name: 'a changed entry, in place', text: '# c\n[mcp_servers.session-state-kit]\ncommand = "old"\nargs = []\n# after\n', change: { mcp: server }, want: '# c\n[mcp_servers.session-state-kit]\ncommand = "/usr/bin/node"\nargs = ["/kit/cli.js", "mcp", "--db", "/d.db"]\n# after\n' },
  { name: 'the only entry removed', text: '[mcp_servers.session-state-kit]\ncommand = "x"\nargs = []\n', change: { mcp: null }, want: '' },
  { name: 'an entry removed after the person\'s text', text: '# mine\nmodel = "m"\n\n[mcp_servers.session-state-kit]\ncommand = "x"\nargs = []\n', change: { mcp: null }, want: '# mine\nmodel = "m"\n' },
  { name: 'a new trust entry', text: '# mine\nmodel = "m"\n', change: { trust: [{ key: '/h/hooks.json:session_start:0:0', hash: 'sha256:aa' }] }, want: '# mine\nmodel = "m"\n\n[hooks.state."/h/hooks.json:session_start:0:0"]\ntrusted_hash = "sha256:aa"\n' },
  { name: 'trust beside a [hooks] table', text: '[hooks]\nenabled = true\n', change: { trust: [{ key: 'k', hash: 'h' }] }, want: '[hooks]\nenabled = true\n\n[hooks.state.k]\ntrusted_hash = "h"\n' },
  { name: 'trust beside other trust', text: '[hooks.state."a"]\ntrusted_hash = "x"\n', change: { trust: [{ key: 'b', hash: 'h' }] }, want: '[hooks.state."a"]\ntrusted_hash = "x"\n\n[hooks.state.b]\ntrusted_hash = "h"\n' },
  { name: 'a server and trust, both new', text: 'model = "m"\n', change: { mcp: server, trust: [{ key: 'k', hash: 'h' }] }, want: `model = "m"\n\n${S}\n\n[hooks.state.k]\ntrusted_hash = "h"\n` },
  {
    name: 'a new server while a trust entry changes in place',
    text: '# t\n[hooks.state.k]\ntrusted_hash = "old"\n',
    change: { mcp: server, trust: [{ key: 'k', hash: 'new' }] },
    want: `# t\n[hooks.state.k]\ntrusted_hash = "new"\n\n${S}\n`,
  },
];

describe('T45 T46 editCodexToml by exact text', () => {
  it.each(cases)('$name', ({ text, change, want }) => {
    const got = editCodexToml('/h/.codex/config.toml', text, change);
    expect(got).toBe(want);
    // Whatever the layout, Codex reads what init meant.
    const again = editCodexToml('/h/.codex/config.toml', got, change);
    expect(again).toBe(got);
    if (got !== '') expect(parseToml(got!)).toBeTypeOf('object');
  });

  it('an edit that changes nothing returns the text as given (undefined stays undefined)', () => {
    expect(editCodexToml('c', undefined, { mcp: null })).toBeUndefined();
    expect(editCodexToml('c', '# only a comment\n', { dropTrust: () => true })).toBe('# only a comment\n');
  });
});
