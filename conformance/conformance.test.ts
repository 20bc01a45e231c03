/**
 * The suite passes against our own stores. Adding a store is one line in FACTORIES.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/memory/index.js';
import { memoryLogger } from '../src/shared/logger.js';
import { SqliteStore, createSqliteStore, sqliteStoreFactory } from '../src/sqlite/index.js';
import { brokenByName } from './broken/index.js';
import { MEMORY_HANDLES, type ConformanceTarget, type HandleFactory } from './handles.js';
import { PROPERTIES, formatReport, listProperties, runConformance, selectProperties } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'ssk-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const sqliteLog = memoryLogger();

/** Multi-handle mode on SQLite: each handle is its own connection to one file. */
const SQLITE_CONNECTIONS: HandleFactory = {
  create: (o) => createSqliteStore({ logger: sqliteLog, ...o, path: join(dir, `store-${files++}.db`) }),
  openHandle: (first, o) => {
    if (!(first instanceof SqliteStore)) throw new TypeError('not a SqliteStore');
    return createSqliteStore({ logger: sqliteLog, ...o, path: first.path });
  },
};

const MULTI = PROPERTIES.filter((p) => p.multiHandle).map((p) => p.name);

/** [name, target, cases per property (undefined: each property's default), skip the 50,000-row property] */
const FACTORIES: [string, ConformanceTarget, number | undefined, boolean][] = [
  ['memory', createMemoryStore, undefined, false],
  ['memory (3 handles on one state)', MEMORY_HANDLES, 40, true],
  ['sqlite (:memory:)', sqliteStoreFactory({ logger: sqliteLog }), 40, false],
  ['sqlite (file)', sqliteStoreFactory({ logger: sqliteLog, path: () => join(dir, `store-${files++}.db`) }), 10, true],
  ['sqlite (file, 3 connections)', SQLITE_CONNECTIONS, 10, true],
];

describe.each(FACTORIES)('conformance suite against %s', (_name, factory, runs, skipRealLimits) => {
  it('passes every property', async () => {
    const multi = typeof factory !== 'function' && factory.openHandle !== undefined;
    const names = PROPERTIES.map((p) => p.name).filter((n) => !(skipRealLimits && n === 'R42-real-limits') && (multi || !MULTI.includes(n)));
    const result = await runConformance(factory, { seed: 20260101, properties: names, ...(runs !== undefined ? { runs } : {}) });
    if (!result.passed) console.error(formatReport(result));
    expect(result.properties.map((p) => [p.name, p.passed])).toEqual(names.map((n) => [n, true]));
    expect(result.properties.every((p) => p.runs >= 1)).toBe(true);
  }, 180_000);
});

it('the SQLite runs logged no storage failure', () => {
  expect(sqliteLog.entries).toEqual([]);
});

describe('runConformance', () => {
  it('selects properties by name and by rule number, and rejects unknown ones', () => {
    expect(selectProperties(['R28']).map((p) => p.name)).toEqual(['R27-R28-ack-on-drain', 'R27b-ack-notices']);
    expect(selectProperties(['r42']).map((p) => p.name)).toEqual(['R42-heads-monotonic', 'R42-real-limits']);
    expect(selectProperties(['model', 'R13-bare-keys']).map((p) => p.name)).toEqual(['model', 'R13-bare-keys']);
    expect(() => selectProperties(['R99'])).toThrow(/unknown property/);
    expect(listProperties().length).toBe(PROPERTIES.length);
    // every property is tied to at least one rule, and names are unique
    expect(new Set(PROPERTIES.map((p) => p.name)).size).toBe(PROPERTIES.length);
    for (const p of PROPERTIES) expect(p.rules.length).toBeGreaterThan(0);
  });

  it('reports a failure as a numbered script with seed and path, and the path replays it', async () => {
    const broken = brokenByName('acks-to-head')!;
    const events: string[] = [];
    const first = await runConformance(broken.create, { properties: ['R27-R28-ack-on-drain'], seed: 99, onProgress: (e) => events.push(e.type) });
    expect(first.passed).toBe(false);
    const f = first.properties[0]!.failure!;
    expect(f.message).toMatch(/^R28: /);
    expect(f.script.split('\n')[0]).toMatch(/^\/\/ roles: watcher = /);
    expect(f.script).toMatch(/\n>\s*\d+\. drainNotices\(/);
    expect(f.replay.cli).toBe(`--property R27-R28-ack-on-drain --seed 99 --path ${f.path}`);
    expect(events[0]).toBe('start');
    expect(events.at(-1)).toBe('end');

    const replay = await runConformance(broken.create, { properties: [f.replay.property], seed: f.seed, path: f.path!, shrink: false });
    expect(replay.passed).toBe(false);
    expect(replay.properties[0]!.failure!.script).toBe(f.script);
    expect(replay.properties[0]!.runs).toBe(1);

    // the same case against the reference passes: the failure is the implementation's
    const control = await runConformance(createMemoryStore, { properties: [f.replay.property], seed: f.seed, path: f.path! });
    expect(control.passed).toBe(true);
    expect(formatReport(first)).toContain('FAIL: 1 of 1 properties failed');
  });
});
