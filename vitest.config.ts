import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores here and in CI: keep parallelism modest so timing-sensitive child-process tests stay stable.
    maxWorkers: 2,
  },
});
