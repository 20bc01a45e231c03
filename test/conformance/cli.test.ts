import { describe, expect, it } from 'vitest';
import { conformanceCommand, type ConformanceIo } from '../../src/cli/conformance.js';

function capture(): ConformanceIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => void stdout.push(l), err: (t) => void stderr.push(t), isTTY: false };
}

describe('session-state-kit conformance', () => {
  it('exits 0 with a summary table for a conforming store, progress on stderr', async () => {
    const io = capture();
    expect(await conformanceCommand(['--builtin', 'memory', '--property', 'R24,R13', '--runs', '5', '--seed', '3'], io)).toBe(0);
    const out = io.stdout.join('\n');
    expect(out).toMatch(/^property\s+rules\s+cases\s+time\s+result$/m);
    expect(out).toMatch(/^R24-one-pending-notice\s+R24\s+5\s+\S+s\s+ok$/m);
    expect(out).toContain('PASS: 2 properties');
    expect(io.stderr.join('')).toMatch(/seed 3[\s\S]*\[1\/2\] ok {5}R24-one-pending-notice/);
  });

  it('exits 1 for a broken module given with --impl, printing the script and a replay command', async () => {
    const io = capture();
    const code = await conformanceCommand(['--impl', 'conformance/broken/no-follow-up.ts', '--property', 'R27-R28-ack-on-drain', '--seed', '11'], io);
    expect(code).toBe(1);
    const out = io.stdout.join('\n');
    expect(out).toContain('FAIL: 1 of 1 properties failed');
    expect(out).toMatch(/counterexample \(shrunk \d+ times\):\n\/\/ roles: /);
    // The prefix is how this process was started (cliInvocation), so the line runs as printed.
    expect(out).toMatch(/replay: \S.* conformance --impl "conformance\/broken\/no-follow-up.ts" --property R27-R28-ack-on-drain --seed 11 --path \S+/);
  });

  it('--json prints the structured result', async () => {
    const io = capture();
    expect(await conformanceCommand(['--broken', 'wrong-notice-text', '--property', 'R23', '--runs', '30', '--seed', '2', '--json', '--no-shrink'], io)).toBe(1);
    const result = JSON.parse(io.stdout.join('\n')) as { passed: boolean; seed: number; properties: { name: string; passed: boolean; failure?: { message: string; seed: number } }[] };
    expect(result.passed).toBe(false);
    expect(result.seed).toBe(2);
    expect(result.properties[0]).toMatchObject({ name: 'R23-notice-text', passed: false, failure: { seed: 2 } });
    expect(result.properties[0]!.failure!.message).toMatch(/^R23: notice text must be exactly/);
  });

  it('exits 2 on usage errors', async () => {
    for (const argv of [[], ['--impl'], ['--builtin', 'memory', '--exec', 'x'], ['--builtin', 'nope'], ['--builtin', 'memory', '--property', 'R99'], ['--builtin', 'memory', '--runs', '0'], ['--bogus'], ['--builtin', 'memory', '--path', '1:2']]) {
      const io = capture();
      expect(await conformanceCommand(argv, io), argv.join(' ')).toBe(2);
      expect(io.stderr.join('')).not.toBe('');
    }
    const io = capture();
    expect(await conformanceCommand(['--impl', 'conformance/no-such-module.js'], io)).toBe(2);
    expect(await conformanceCommand(['--list'], io)).toBe(0);
    expect(io.stdout.join('\n')).toMatch(/^R27-R28-ack-on-drain\s+R27 R28/m);
  });

  describe('multi-handle by default (W8): R20, R26, R27 across handles run whenever the implementation can open handles', () => {
    it('--broken handle-local-queue is caught without --handles', async () => {
      const io = capture();
      const code = await conformanceCommand(['--broken', 'handle-local-queue', '--property', 'model,R20-R27-handles-agree', '--runs', '20', '--seed', '7', '--no-shrink'], io);
      expect(code).toBe(1);
      expect(io.stdout.join('\n')).toMatch(/FAIL: \d+ of 2 properties failed .*3 handles per store/);
    }, 120_000);

    it('--builtin memory and sqlite run the multi-handle properties by default', async () => {
      for (const builtin of ['memory', 'sqlite']) {
        const io = capture();
        expect(await conformanceCommand(['--builtin', builtin, '--property', 'R20-R27-handles-agree', '--runs', '3', '--seed', '4'], io), builtin).toBe(0);
        const out = io.stdout.join('\n');
        expect(out, builtin).toMatch(/PASS: 1 properties in \S+ \(seed 4, 3 handles per store\)/);
        expect(out, builtin).not.toContain('not run');
      }
    }, 120_000);

    it('a store that cannot open handles is run single-handle, and the summary says so', async () => {
      const io = capture();
      expect(await conformanceCommand(['--broken', 'no-follow-up', '--property', 'R24,R20-R27-handles-agree', '--runs', '5', '--seed', '4'], io)).toBe(0);
      const out = io.stdout.join('\n');
      expect(out).toMatch(/PASS: 1 properties in \S+ \(seed 4, single-handle only\)/);
      expect(out).toMatch(/^single-handle only: the implementation cannot open more handles on one store \(no openHandle\); .*R20, R26, R27/m);
      expect(out).toMatch(/^not run: R20-R27-handles-agree/m);
      const one = capture();
      expect(await conformanceCommand(['--builtin', 'memory', '--handles', '1', '--property', 'R24', '--runs', '2'], one)).toBe(0);
      expect(one.stdout.join('\n')).toMatch(/^single-handle only: asked for with --handles 1;/m);
    }, 60_000);

    it('--exec probes the implementation: a shared file gets 3 processes, an in-memory store is single-handle and says why', async () => {
      const server = (store: string) => `"${process.execPath}" --import tsx conformance/stdio-server.ts --store ${store}`;
      const shared = capture();
      expect(await conformanceCommand(['--exec', server('sqlite-file'), '--property', 'R20-R27-handles-agree', '--runs', '2', '--seed', '9'], shared)).toBe(0);
      expect(shared.stdout.join('\n')).toMatch(/\(seed 9, 3 handles per store\)/);
      const alone = capture();
      expect(await conformanceCommand(['--exec', server('memory'), '--property', 'R24,R20-R27-handles-agree', '--runs', '2', '--seed', '9'], alone)).toBe(0);
      const out = alone.stdout.join('\n');
      expect(out).toMatch(/\(seed 9, single-handle only\)/);
      expect(out).toMatch(/^single-handle only: the implementation's create answered null/m);
      expect(alone.stderr.join('')).toContain('conformance: single-handle only:');
    }, 180_000);
  });
});
