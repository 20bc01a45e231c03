/**
 * W1: the per-request timeout of `conformance --exec` is settable (--timeout-ms) and documented.
 * A child that never answers fails after the given time, not after the 30 s default.
 */
import { describe, expect, it } from 'vitest';
import { conformanceCommand, CONFORMANCE_USAGE } from '../../src/cli/conformance.js';

function io() {
  const out: string[] = [];
  let err = '';
  return { out, get err() { return err; }, io: { out: (l: string) => void out.push(l), err: (t: string) => void (err += t) } };
}

describe('conformance --exec per-request timeout', () => {
  it('W1: --timeout-ms bounds the wait for each response', async () => {
    const c = io();
    const started = Date.now();
    const silent = `"${process.execPath}" -e "process.stdin.resume()"`;
    const code = await conformanceCommand(['--exec', silent, '--timeout-ms', '300', '--property', 'R9', '--runs', '1'], c.io);
    expect(code).not.toBe(0);
    expect(c.err).toMatch(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('W1: --timeout-ms is documented, needs --exec and a positive integer', async () => {
    expect(CONFORMANCE_USAGE).toMatch(/--timeout-ms N/);
    for (const argv of [['--builtin', 'memory', '--timeout-ms', '5'], ['--exec', 'x', '--timeout-ms', '0'], ['--exec', 'x', '--timeout-ms', 'soon']]) {
      const c = io();
      expect(await conformanceCommand(argv, c.io)).toBe(2);
    }
  });
});
