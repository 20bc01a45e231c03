/**
 * The whole conformance suite on PostgreSQL: single-handle, and multi-handle with several pools on
 * one schema standing for several machines (conformance/handles.ts).
 */
import { describe, expect, it } from 'vitest';
import { PROPERTIES, formatReport, runConformance } from '../../conformance/index.js';
import type { HandleFactory } from '../../conformance/handles.js';
import { PostgresStore, createPostgresStore } from '../../src/postgres/index.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const MULTI = PROPERTIES.filter((p) => (p as { multiHandle?: boolean }).multiHandle).map((p) => p.name);

/** Each handle is a store with a pool of its own on the first handle's schema: another machine. */
const MACHINES: HandleFactory = {
  create: (o) => pg.factory()(o),
  openHandle: (first, o) => {
    if (!(first instanceof PostgresStore)) throw new TypeError('not a PostgresStore');
    return createPostgresStore({ logger: pg.log, maxConnections: 4, ...o, connectionString: pg.url(), schema: first.schema });
  },
};

describe('conformance suite against PostgreSQL', () => {
  it('passes every property (one handle per store)', async () => {
    // R42-real-limits (50,000 records at the real cap) is left to the SQLite file runs: at a few
    // round trips per record it alone would take minutes here.
    const names = PROPERTIES.map((p) => p.name).filter((n) => !MULTI.includes(n) && n !== 'R42-real-limits');
    const result = await runConformance((o) => pg.factory()(o), { seed: 20260101, properties: names, runs: 5 });
    if (!result.passed) console.error(formatReport(result));
    expect(result.properties.map((p) => [p.name, p.passed])).toEqual(names.map((n) => [n, true]));
  }, 600_000);

  it('passes every property with 3 pools per store (several machines)', async () => {
    const names = PROPERTIES.map((p) => p.name).filter((n) => n !== 'R42-real-limits');
    const result = await runConformance(MACHINES, { seed: 20260102, properties: names, runs: 3, handles: 3 });
    if (!result.passed) console.error(formatReport(result));
    expect(result.properties.map((p) => [p.name, p.passed])).toEqual(names.map((n) => [n, true]));
  }, 600_000);

  it('logged no storage failure', () => {
    expect(pg.log.entries.filter((e) => e.level === 'error')).toEqual([]);
  });
});
