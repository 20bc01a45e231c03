import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWireCases, WIRE_CASES } from './wire-cases.js';
import type { WireQuirk } from './wire-server.js';

/** W1, W3, W4: the driver cases pass against the reference wire server, and each catches the broken server made for it. */
const here = import.meta.dirname;
const server = (quirk?: WireQuirk) => `${process.execPath} --import tsx ${join(here, 'stdio-server.ts')} --store sqlite-file${quirk ? ` --quirk ${quirk}` : ''}`;

const CAUGHT_BY: Record<WireQuirk, string> = {
  'answers-blank-lines': 'W1-blank-lines',
  'splits-at-cr': 'W1-raw-cr',
  'raw-id': 'W3-id-zero',
  'bad-create-closes-the-store': 'W4-bad-create-keeps-the-store',
  'template-schema-is-validation': 'W4-template-errors',
  'keeps-the-store-after-refusal': 'W4-no-store-after-refusal',
  'handle-inherits-options': 'W4-open-handle-defaults',
};

describe('W1 W3 W4 driver cases', () => {
  it('W1 W3 W4 every case passes against the reference wire server (sqlite-file, handles in other processes)', async () => {
    const results = await runWireCases(server());
    expect(results.filter((r) => !r.passed)).toEqual([]);
    expect(results.map((r) => r.name)).toEqual(WIRE_CASES.map((c) => c.name));
  }, 120_000);

  it('W1 W3 W4 every case has a broken server it catches', () => {
    expect(Object.values(CAUGHT_BY).sort()).toEqual(WIRE_CASES.map((c) => c.name).sort());
  });

  it.each(Object.entries(CAUGHT_BY) as [WireQuirk, string][])('W1 W3 W4 a server that %s fails %s', async (quirk, name) => {
    const [result] = await runWireCases(server(quirk), { handles: true, only: [name] });
    expect(result?.passed, result?.message).toBe(false);
    expect(result?.notRun).toBeUndefined();
  }, 60_000);
});
