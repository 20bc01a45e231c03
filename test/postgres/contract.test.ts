import { expect, it } from 'vitest';
import { describeContractRules } from '../contract/rules.js';
import { usePostgres } from './server.js';

// The shared rule suite, unchanged, on a real PostgreSQL server; every store in a fresh schema.
const pg = usePostgres();
describeContractRules('postgres', (options) => pg.factory()(options));

it('the rule suite ran without a single logged storage failure', () => {
  expect(pg.log.entries).toEqual([]);
});
