import { startTestPostgres, type TestPostgres } from '../src/postgres/testing/embedded.js';

/**
 * The postgres part's one server (vitest globalSetup, so once per Stryker worker, not once per test
 * file and mutant): every test file then finds it through SSK_PG_URL, as it would a server a CI
 * names, and keeps to schemas of its own. A server SSK_PG_URL already names is used as it is.
 */
let server: TestPostgres | undefined;

export async function setup(): Promise<void> {
  if (process.env['SSK_PG_URL']) return;
  server = await startTestPostgres({ url: null });
  process.env['SSK_PG_URL'] = server.url;
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
