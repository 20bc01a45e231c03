// @ts-check
import { PARTS } from './parts.mjs';

/** One Stryker configuration for every part; mutation/run.mjs picks the part through SSK_MUTATION_PART. */
const name = process.env.SSK_MUTATION_PART ?? 'core';
const part = PARTS[name];
if (!part) throw new Error(`unknown mutation part ${name}: one of ${Object.keys(PARTS).join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'mutation/vitest.config.ts' },
  // perTest: each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  mutate: part.mutate,
  // Incremental: a re-run after a small change tests only the mutants whose code or tests changed.
  incremental: true,
  incrementalFile: `mutation/reports/${name}.incremental.json`,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `mutation/reports/${name}.json` },
  thresholds: { high: part.target, low: part.target - 10, break: null },
  concurrency: Number(process.env.SSK_MUTATION_CONCURRENCY ?? 2),
  // Static mutants (module-level constants) re-run every test; they are few and mostly regex tables.
  ignoreStatic: false,
  timeoutMS: 10_000,
  tempDirName: 'mutation/.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['dist', 'bench/results', 'mutation/reports', 'runtimes/node_modules', '*.db'],
};
