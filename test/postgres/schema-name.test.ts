import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES, createPostgresStore } from '../../src/postgres/index.js';
import { silentLogger } from '../../src/shared/logger.js';

// PostgreSQL truncates identifiers to 63 bytes, while the store derives its advisory locks and its
// NOTIFY channel from the full schema name: two long names with one prefix would share tables but
// not locks. Such a name is refused before any connection (port 1: nothing listens there).
const open = (schema: string) => createPostgresStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none', schema, now: () => 0, logger: silentLogger, connectionTimeoutMs: 2000 });

describe('PostgreSQL schema names', () => {
  it('a schema name over 63 bytes is a RangeError naming the limit, before connecting', async () => {
    await expect(open('s'.repeat(MAX_IDENTIFIER_BYTES + 1))).rejects.toThrow(RangeError);
    await expect(open('s'.repeat(MAX_IDENTIFIER_BYTES + 1))).rejects.toThrow(/is 64 bytes; PostgreSQL keeps only the first 63 bytes/);
    // Bytes, not characters: 32 two-byte characters are 64 bytes.
    await expect(open('é'.repeat(32))).rejects.toThrow(/is 64 bytes/);
    await expect(open('')).rejects.toThrow(RangeError);
  });

  it('a 63-byte name passes the check (and then fails only at the connection)', async () => {
    const error = await open('s'.repeat(MAX_IDENTIFIER_BYTES)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(RangeError);
  });
});
