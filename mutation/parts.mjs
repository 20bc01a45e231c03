/**
 * The mutation runs (#19), one per directory so each can be run and re-run on its own.
 * `npm run mutation -- <part>...` (no part: all of them, in this order).
 */
export const PARTS = {
  core: { mutate: ['src/core/*.ts', '!src/core/index.ts'], target: 90 },
  upstream: { mutate: ['src/core/upstream/**/*.ts', '!src/core/upstream/index.ts'], target: 90 },
  memory: { mutate: ['src/memory/*.ts', '!src/memory/index.ts'], target: 80 },
  sqlite: { mutate: ['src/sqlite/**/*.ts', '!src/sqlite/index.ts'], target: 80 },
};
