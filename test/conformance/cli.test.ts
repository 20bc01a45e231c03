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
    expect(out).toMatch(/replay: session-state-kit conformance --impl "conformance\/broken\/no-follow-up.ts" --property R27-R28-ack-on-drain --seed 11 --path \S+/);
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
});
