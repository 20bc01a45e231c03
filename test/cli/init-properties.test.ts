import { parse as parseToml } from '@decimalturn/toml-patch';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexTrustFor, editCodexToml, editHooksText, readJsonConfig } from '../../src/cli/agent-config.js';
import { isOwnHook } from '../../src/cli/kit-command.js';

/**
 * T45: the round-trip properties of the pure edits init makes, in process (init.test.ts runs init
 * itself as the built CLI): init twice is init once, and uninstall gives the person's file back.
 */
const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
const jsonLeaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean());
const foreignHandler = fc.record({ type: fc.constant('command'), command: fc.stringMatching(/^[~/a-z][a-z0-9/ _.-]{0,20}$/) });
const group = fc.record({ matcher: fc.option(word, { nil: undefined }), hooks: fc.array(foreignHandler, { minLength: 1, maxLength: 2 }) }, { requiredKeys: ['hooks'] });
const events = fc.constantFrom('SessionStart', 'UserPromptSubmit', 'PreToolUse', 'Stop', 'PostCompact', 'Notification');
const settingsFile = fc.record(
  {
    model: jsonLeaf,
    // An empty hooks table is dropped by uninstall (T45), as if it had never been there.
    hooks: fc.dictionary(events, fc.array(group, { minLength: 1, maxLength: 2 }), { minKeys: 1, maxKeys: 4 }),
    env: fc.dictionary(word, fc.string({ maxLength: 8 }), { maxKeys: 3 }),
    extra: fc.dictionary(word, jsonLeaf, { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);
const tomlComment = fc.stringMatching(/^[a-zA-Z0-9 ,.]{0,20}$/).map((c) => `# ${c}`);
const tomlFile = fc
  .record({
    lead: fc.option(tomlComment, { nil: undefined }),
    top: fc.array(fc.tuple(word, fc.oneof(fc.stringMatching(/^[a-z0-9 ]{0,10}$/).map((v) => JSON.stringify(v)), fc.integer({ min: 0, max: 999 }).map(String)), fc.option(tomlComment, { nil: undefined })), { maxLength: 3 }),
    servers: fc.uniqueArray(word.filter((w) => w !== 'session-state-kit'), { maxLength: 2 }),
    trusted: fc.uniqueArray(fc.stringMatching(/^\/[a-z]{1,8}\/hooks\.json:stop:[0-3]:0$/), { maxLength: 2 }),
  })
  .map(({ lead, top, servers, trusted }) => {
    const seen = new Set<string>();
    const lines = lead === undefined ? [] : [lead];
    for (const [k, v, c] of top) if (!seen.has(k) && k !== 'mcp_servers' && k !== 'hooks') (seen.add(k), lines.push(`${k} = ${v}${c === undefined ? '' : `  ${c}`}`));
    for (const s of servers) lines.push('', `[mcp_servers.${s}]`, `command = "${s}-server"  # theirs`);
    for (const t of trusted) lines.push('', `[hooks.state."${t}"]`, `trusted_hash = "sha256:${'0'.repeat(64)}"`);
    return `${lines.join('\n')}\n`;
  });

describe('T45 property: init twice is init once, and uninstall gives the user\'s file back', () => {
  const command = "/usr/bin/node '/opt/my tools/session-state-kit/dist/cli.js' hook codex --db /srv/team.db";
  const other = '/usr/bin/node /opt/session-state-kit/dist/cli.js hook codex --db /srv/other.db';

  it('T45 hooks files (Claude Code settings.json, Codex hooks.json): same entries, same key order; another database\'s hook is left alone', () => {
    fc.assert(
      fc.property(settingsFile, fc.constantFrom<'claude-code' | 'codex'>('claude-code', 'codex'), fc.constantFrom('  ', '    ', '\t'), (value, cli, indent) => {
        const text = `${JSON.stringify(value, null, indent)}\n`;
        const cmd = command.replace('hook codex', `hook ${cli}`);
        const own = (c: unknown) => isOwnHook(c, cli, '/srv/team.db');
        const once = editHooksText('s.json', text, cli, cmd, own)!;
        const twice = editHooksText('s.json', once, cli, cmd, own)!;
        expect(twice).toBe(once);
        // A newer copy of the kit (another launcher) updates the handler where it is, it does not add one.
        const moved = editHooksText('s.json', once, cli, cmd.replace('/opt/my tools/', '/opt/v2/'), own)!;
        expect(moved.split(' hook ').length).toBe(once.split(' hook ').length);
        // A hook for another database is not init's for this one: it is added beside, and both stay.
        const otherDb = other.replace('hook codex', `hook ${cli}`);
        const both = editHooksText('s.json', moved, cli, otherDb, (c) => isOwnHook(c, cli, '/srv/other.db'))!;
        expect(both.split(' hook ').length).toBe(2 * once.split(' hook ').length - text.split(' hook ').length);
        const backOther = editHooksText('s.json', both, cli, undefined, (c) => isOwnHook(c, cli, '/srv/other.db'))!;
        expect(backOther).toBe(moved);
        const back = editHooksText('s.json', moved, cli, undefined, own)!;
        expect(JSON.stringify(readJsonConfig('s.json', back))).toBe(JSON.stringify(readJsonConfig('s.json', text)));
        if (Object.keys(value).length > 0) expect(back).toBe(text);
      }),
      { numRuns: 200, seed: 45 },
    );
  });

  it('T45 Codex config.toml: comments, lines and other tables kept, in order', () => {
    fc.assert(
      fc.property(tomlFile, (text) => {
        const trust = codexTrustFor('/h/.codex/hooks.json', readJsonConfig('h', editHooksText('h', undefined, 'codex', command, () => false)), (c) => c === command);
        const mcp = { command: '/usr/bin/node', args: ['/opt/x/cli.js', 'mcp', '--db', '/srv/team.db'] };
        const once = editCodexToml('c.toml', text, { mcp, trust, dropTrust: (k) => k.startsWith('/h/.codex/hooks.json:') })!;
        expect(parseToml(once)['mcp_servers']['session-state-kit']).toEqual(mcp);
        const twice = editCodexToml('c.toml', once, { mcp, trust, dropTrust: (k) => k.startsWith('/h/.codex/hooks.json:') });
        expect(twice).toBe(once);
        const back = editCodexToml('c.toml', once, { mcp: null, trust: [], dropTrust: (k) => k.startsWith('/h/.codex/hooks.json:') })!;
        // Every line comes back, comments included, in order; toml-patch may re-align the spaces
        // before an inline comment, nothing else.
        const lines = (t: string) => t.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
        expect(lines(back)).toEqual(lines(text));
        expect(JSON.stringify(parseToml(back))).toBe(JSON.stringify(parseToml(text)));
      }),
      { numRuns: 150, seed: 45 },
    );
  });
});
