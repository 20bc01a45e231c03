import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOwnHook, parseKitHookCommand } from '../../src/cli/kit-command.js';
import { shellJoin, splitShellWords } from '../../src/cli/shell-words.js';

/** T45: the one shell form init writes, and the parse that recognises it, agree with real shells. */
const word = fc.string({ unit: fc.oneof(fc.constantFrom("'", '"', '$', '`', '\\', ' ', '\n', ';', '&', '#', '*', '|', '(', '\u202e'), fc.string({ minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 12 }).filter((w) => !w.includes('\0'));

describe('T45 shell words', () => {
  it('T45 splitShellWords inverts shellJoin for any words', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        expect(splitShellWords(shellJoin(words))).toEqual(words);
      }),
      { numRuns: 1000, seed: 45 },
    );
  });

  const shells = ['/bin/sh', '/bin/bash', '/bin/dash'].filter((s) => existsSync(s));
  it('T45 what the parse accepts is the same words to sh, bash and dash', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), (words) => {
        const command = shellJoin(['printf', '%s\\0', ...words]);
        for (const shell of shells) {
          const out = spawnSync(shell, ['-c', command], { encoding: 'utf8' });
          expect(out.stdout.split('\0').slice(0, -1), shell).toEqual(words);
        }
      }),
      { numRuns: 40, seed: 45 },
    );
  });

  it('T45 a command with anything a shell would interpret outside quotes is not one of the kit\'s', () => {
    const kit = "/usr/bin/node /opt/kit/dist/cli.js hook codex --db /srv/team.db";
    expect(isOwnHook(kit, 'codex', '/srv/team.db')).toBe(true);
    for (const lure of [
      'touch PWNED # session-state-kit hook codex --db /srv/team.db',
      `/bin/audit && ${kit}`,
      `${kit}; touch PWNED`,
      `${kit} > /dev/null`,
      `$(touch PWNED) ${kit}`,
      `"/usr/bin/node" /opt/kit/dist/cli.js hook codex --db /srv/team.db`,
      'echo session-state-kit hook codex --db /srv/team.db',
      '/usr/bin/node /opt/kit/dist/cli.js hook codex --db /srv/other.db',
      'node /opt/kit/dist/cli.js hook codex --db /srv/team.db',
      '/usr/bin/python3 /opt/kit/dist/cli.js hook codex --db /srv/team.db',
      '/usr/bin/node /opt/kit/dist/evil.js hook codex --db /srv/team.db',
    ]) {
      expect(isOwnHook(lure, 'codex', '/srv/team.db'), lure).toBe(false);
    }
    expect(parseKitHookCommand("npx session-state-kit hook codex --db '/a b/team.db'")).toEqual({ launcher: ['npx', 'session-state-kit'], form: 'npx', cli: 'codex', db: '/a b/team.db' });
  });
});
