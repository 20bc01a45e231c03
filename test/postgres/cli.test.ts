import { afterEach, expect, it } from 'vitest';
import { conformanceCommand } from '../../src/cli/conformance.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const saved = process.env['SSK_PG_URL'];
afterEach(() => {
  if (saved === undefined) delete process.env['SSK_PG_URL'];
  else process.env['SSK_PG_URL'] = saved;
});

it('conformance --builtin postgres runs the suite on the server SSK_PG_URL names, with and without handles', async () => {
  process.env['SSK_PG_URL'] = pg.url(); // this file's server, instead of starting another
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => void out.push(l), err: (t: string) => void err.push(t), isTTY: false };
  const code = await conformanceCommand(['--builtin', 'postgres', '--property', 'R24,R27-R28-ack-on-drain', '--runs', '2', '--seed', '7'], io);
  expect(err.join('')).toContain('PostgreSQL at SSK_PG_URL');
  expect(out.join('\n')).toMatch(/PASS: 2 properties/);
  expect(code).toBe(0);
  const multi = await conformanceCommand(['--builtin', 'postgres', '--property', 'R20-R27-handles-agree', '--runs', '2', '--seed', '7', '--handles', '3'], io);
  expect(out.join('\n')).toMatch(/3 handles per store/);
  expect(multi).toBe(0);
  // the schemas it created on a server it did not start are dropped again
  const admin = await pg.admin();
  const left = await admin.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'ssk_conformance_%'");
  expect(left.rows).toEqual([]);
}, 300_000);
