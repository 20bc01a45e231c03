/**
 * How the PostgreSQL adapter names a failure (R9, and the typed configuration errors of its
 * open): `pg`'s errors mapped by their codes wherever they sit (an AggregateError of both
 * addresses, a cause), what the log line says, and which SQLSTATEs a transaction retries on.
 * No server: the errors are built as `pg` and Node's `net` build them. What a real server answers
 * is held by config-errors.test.ts and read-model.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  NotAStateSchemaError,
  PostgresAuthenticationError,
  PostgresDatabaseMissingError,
  PostgresDriverUnavailableError,
  PostgresEncodingError,
  PostgresPrivilegeError,
  PostgresStoreError,
  PostgresUnreachableError,
  SchemaTooNewError,
} from '../../src/postgres/index.js';
import { loadPg } from '../../src/postgres/driver.js';
import { classifyOpenError, describeError, isRetryable } from '../../src/postgres/errors.js';

const context = { target: 'postgres://u:***@db:5432/app', user: 'u', schema: 'team' };
/** An error as `pg` or Node builds one: a message and a code. */
const coded = (code: string, message = `failed with ${code}`): Error => Object.assign(new Error(message), { code });

describe('classifyOpenError', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'])('%s is unreachable, naming the target and the reason', (code) => {
    const cause = coded(code, `connect ${code} 10.0.0.1:5432`);
    const e = classifyOpenError(cause, context);
    expect(e).toBeInstanceOf(PostgresUnreachableError);
    expect(e).toMatchObject({ code: 'unreachable', target: context.target, cause });
    expect((e as Error).message).toBe(`cannot reach PostgreSQL at ${context.target}: connect ${code} 10.0.0.1:5432; check that the server runs and the host and port are right (SSK_PG_URL or the connection string)`);
  });

  it('a refusal on every address (an AggregateError with an empty message) is unreachable, its reason the first code', () => {
    const both = Object.assign(new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'), coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')], ''), { code: 'ECONNREFUSED' });
    const e = classifyOpenError(both, context) as PostgresUnreachableError;
    expect(e).toBeInstanceOf(PostgresUnreachableError);
    expect(e.message).toContain(`${context.target}: ECONNREFUSED;`);
    // Without a code of its own, the inner errors' codes are found.
    const inner = new AggregateError([new Error('x'), coded('EHOSTUNREACH')], '');
    expect(classifyOpenError(inner, context)).toBeInstanceOf(PostgresUnreachableError);
    expect((classifyOpenError(inner, context) as Error).message).toContain(': EHOSTUNREACH;');
  });

  it('a code is found in a cause, down to three levels and no deeper', () => {
    const wrap = (e: unknown, levels: number): Error => (levels === 0 ? (e as Error) : new Error(`wrapped ${levels}`, { cause: wrap(e, levels - 1) }));
    expect(classifyOpenError(wrap(coded('ECONNREFUSED'), 3), context)).toBeInstanceOf(PostgresUnreachableError);
    const deep = wrap(coded('ECONNREFUSED'), 4);
    expect(classifyOpenError(deep, context)).toBe(deep);
    // The same depth through `errors` arrays.
    const nest = (e: Error, levels: number): Error => (levels === 0 ? e : new AggregateError([nest(e, levels - 1)], `level ${levels}`));
    expect(classifyOpenError(nest(coded('28P01'), 3), context)).toBeInstanceOf(PostgresAuthenticationError);
    const tooDeep = nest(coded('28P01'), 4);
    expect(classifyOpenError(tooDeep, context)).toBe(tooDeep);
  });

  it('the driver\'s connection timeouts, without a code, are unreachable whatever their case', () => {
    for (const message of ['timeout expired', 'Connection terminated due to connection timeout', 'query read TIMEOUT EXPIRED after 5s']) {
      expect(classifyOpenError(new Error(message), context)).toBeInstanceOf(PostgresUnreachableError);
    }
    const other = new Error('Connection terminated unexpectedly');
    expect(classifyOpenError(other, context)).toBe(other);
  });

  it('28P01 and 28000 are authentication naming the user, or "(default)" when none was given', () => {
    for (const code of ['28P01', '28000']) {
      const e = classifyOpenError(coded(code, 'password authentication failed for user "u"'), context);
      expect(e).toBeInstanceOf(PostgresAuthenticationError);
      expect(e).toMatchObject({ code: 'authentication', target: context.target, user: 'u' });
      expect((e as Error).cause).toMatchObject({ code });
      expect((e as Error).message).toBe(`PostgreSQL at ${context.target} refused user u: password authentication failed for user "u"; check the user name and password in the connection string, and pg_hba.conf on the server`);
    }
    expect((classifyOpenError(coded('28P01'), { ...context, user: undefined }) as Error).message).toContain('refused user (default):');
  });

  it('42501 is a privilege error naming the schema and a GRANT; 3D000 a missing database naming the target', () => {
    const p = classifyOpenError(coded('42501', 'permission denied for schema team'), context);
    expect(p).toBeInstanceOf(PostgresPrivilegeError);
    expect(p).toMatchObject({ code: 'privilege', schema: 'team', user: 'u' });
    expect((p as Error).cause).toMatchObject({ code: '42501' });
    expect((p as PostgresStoreError).hint).toContain('GRANT USAGE, CREATE ON SCHEMA team');
    expect((p as Error).message).toMatch(/^user u lacks a privilege on schema team: permission denied for schema team; run the first open/);
    expect((classifyOpenError(coded('42501'), { ...context, user: undefined }) as Error).message).toMatch(/^user \(default\) lacks/);
    const d = classifyOpenError(coded('3D000', 'database "app" does not exist'), context);
    expect(d).toBeInstanceOf(PostgresDatabaseMissingError);
    expect(d).toMatchObject({ code: 'database-missing', target: context.target });
    expect((d as Error).cause).toMatchObject({ code: '3D000' });
    expect((d as Error).message).toBe(`${context.target}: database "app" does not exist; create the database first (CREATE DATABASE ...) or name an existing one in the connection string`);
  });

  it('unreachable wins over a server code; authentication over privilege; privilege over a missing database', () => {
    const mixed = (codes: string[]) => new AggregateError(codes.map((c) => coded(c)), 'mixed');
    expect(classifyOpenError(mixed(['28P01', 'ECONNRESET']), context)).toBeInstanceOf(PostgresUnreachableError);
    expect(classifyOpenError(mixed(['42501', '28000']), context)).toBeInstanceOf(PostgresAuthenticationError);
    expect(classifyOpenError(mixed(['3D000', '42501']), context)).toBeInstanceOf(PostgresPrivilegeError);
  });

  it('a typed error passes through as it is; any other failure, or a thrown non-error, is returned unchanged', () => {
    const typed = new SchemaTooNewError('team', 9, 3);
    expect(classifyOpenError(typed, context)).toBe(typed);
    // Even one whose message reads like a driver timeout: it is not wrapped a second time.
    const already = new PostgresUnreachableError(context.target, 'timeout expired');
    expect(classifyOpenError(already, context)).toBe(already);
    const syntax = coded('42601', 'syntax error');
    expect(classifyOpenError(syntax, context)).toBe(syntax);
    expect(classifyOpenError('a string', context)).toBe('a string');
    expect(classifyOpenError(undefined, context)).toBeUndefined();
    expect(classifyOpenError(null, context)).toBeNull();
    // A code that is not a string is no code.
    const numeric = Object.assign(new Error('odd'), { code: 28000 });
    expect(classifyOpenError(numeric, context)).toBe(numeric);
  });

  it('a reason with no message of its own is the first code, then the error\'s name', () => {
    expect((classifyOpenError(coded('ECONNREFUSED', ''), context) as Error).message).toContain(': ECONNREFUSED;');
    const named = Object.assign(new Error(''), { name: 'ConnectTimeoutError', code: 'ETIMEDOUT' });
    expect((classifyOpenError(named, context) as Error).message).toContain(': ETIMEDOUT;');
    const auth = Object.assign(new Error(''), { name: 'AuthError', errors: [coded('28P01', '')] });
    expect((classifyOpenError(auth, context) as Error).message).toContain('refused user u: 28P01;');
  });
});

describe('describeError (the log line of R9)', () => {
  it('message, name and the first code; no code field when there is none', () => {
    expect(describeError(coded('40001', 'could not serialize access'))).toEqual({ error: 'could not serialize access', name: 'Error', code: '40001' });
    expect(describeError(new TypeError('bad'))).toEqual({ error: 'bad', name: 'TypeError' });
    expect(Object.keys(describeError(new Error('x')))).toEqual(['error', 'name']);
    expect(describeError(new Error('outer', { cause: coded('57P01') }))).toEqual({ error: 'outer', name: 'Error', code: '57P01' });
  });

  it('an AggregateError without a message is "connection failed"; another error without one its name; a non-error as text', () => {
    expect(describeError(new AggregateError([coded('ECONNREFUSED')], ''))).toEqual({ error: 'connection failed', name: 'AggregateError', code: 'ECONNREFUSED' });
    expect(describeError(new RangeError(''))).toEqual({ error: 'RangeError', name: 'RangeError' });
    expect(describeError('gone')).toEqual({ error: 'gone' });
    expect(describeError(42)).toEqual({ error: '42' });
  });
});

describe('isRetryable', () => {
  it('a serialization failure, a deadlock and a unique violation are retried, where they sit; nothing else is', () => {
    for (const code of ['40001', '40P01', '23505']) {
      expect(isRetryable(coded(code))).toBe(true);
      expect(isRetryable(new Error('in a transaction', { cause: coded(code) }))).toBe(true);
    }
    for (const code of ['40000', '23503', '42501', '57P01', 'ECONNRESET']) expect(isRetryable(coded(code))).toBe(false);
    expect(isRetryable(new Error('no code'))).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
  });
});

describe('the typed errors', () => {
  it('each carries its code, its name, its fields, a message ending in its hint, and the cause it was given', () => {
    const cause = new Error('root');
    const cases: [PostgresStoreError, string, string, Record<string, unknown>][] = [
      [new PostgresUnreachableError('t', 'r', { cause }), 'PostgresUnreachableError', 'unreachable', { target: 't' }],
      [new PostgresAuthenticationError('t', 'u', 'r', { cause }), 'PostgresAuthenticationError', 'authentication', { target: 't', user: 'u' }],
      [new PostgresPrivilegeError('s', 'u', 'r', { cause }), 'PostgresPrivilegeError', 'privilege', { schema: 's', user: 'u' }],
      [new PostgresDatabaseMissingError('t', 'r', { cause }), 'PostgresDatabaseMissingError', 'database-missing', { target: 't' }],
      [new PostgresDriverUnavailableError('r', { cause }), 'PostgresDriverUnavailableError', 'driver-unavailable', {}],
    ];
    for (const [e, name, code, fields] of cases) {
      expect(e).toBeInstanceOf(PostgresStoreError);
      expect(e).toBeInstanceOf(Error);
      expect(e).toMatchObject({ name, code, ...fields });
      expect(e.cause).toBe(cause);
      expect(e.message.endsWith(`; ${e.hint}`)).toBe(true);
      expect(e.hint.length).toBeGreaterThan(10);
    }
    expect(new PostgresDriverUnavailableError('not installed').message).toBe('the PostgreSQL driver (pg) cannot be loaded: not installed; install it: npm install pg');
  });

  it('a schema too new, a schema that is not ours and a database in another encoding say what they found', () => {
    const tooNew = new SchemaTooNewError('team', 9, 3);
    expect(tooNew).toMatchObject({ name: 'SchemaTooNewError', code: 'schema-too-new', schema: 'team', foundVersion: 9, supportedVersion: 3 });
    expect(tooNew.message).toBe('PostgreSQL schema team has session-state schema version 9, but this version of session-state-kit only knows up to 3; upgrade session-state-kit to open it');
    const notOurs = new NotAStateSchemaError('team', 'it has a table but no version');
    expect(notOurs).toMatchObject({ name: 'NotAStateSchemaError', code: 'not-a-state-schema', schema: 'team' });
    expect(notOurs.message).toBe('PostgreSQL schema team is not a session-state schema: it has a table but no version; give the store a schema of its own (the `schema` option)');
    const enc = new PostgresEncodingError('LATIN1');
    expect(enc).toMatchObject({ name: 'PostgresEncodingError', code: 'encoding', encoding: 'LATIN1' });
    expect(enc.message).toBe("the database encoding is LATIN1, not UTF8; create the database with ENCODING 'UTF8'");
    const base = new PostgresStoreError('unreachable', 'm', 'h');
    expect(base).toMatchObject({ name: 'PostgresStoreError', message: 'm; h', hint: 'h' });
    expect(base.cause).toBeUndefined();
  });
});

describe('the driver (pg, an optional peer)', () => {
  it('one that cannot be loaded is PostgresDriverUnavailableError with the reason and the install hint; the next open tries again, and a loaded one is kept', async () => {
    const missing = Object.assign(new Error("Cannot find package 'pg' imported from /app"), { code: 'ERR_MODULE_NOT_FOUND' });
    const asked: string[] = [];
    const failing = (specifier: string) => (asked.push(specifier), Promise.reject(missing));
    const e = await loadPg(failing).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(PostgresDriverUnavailableError);
    expect(e).toMatchObject({ code: 'driver-unavailable', cause: missing });
    expect((e as Error).message).toBe("the PostgreSQL driver (pg) cannot be loaded: Cannot find package 'pg' imported from /app; install it: npm install pg");
    await expect(loadPg(failing)).rejects.toBeInstanceOf(PostgresDriverUnavailableError);
    expect(asked).toEqual(['pg', 'pg']);
    // An ES module namespace whose default export is the CommonJS module: the default is the driver,
    // imported once.
    const driver = { Client: class {}, Pool: class {} };
    const namespace = { default: driver, Client: driver.Client };
    const found = (specifier: string) => (asked.push(specifier), Promise.resolve(namespace));
    expect(await loadPg(found)).toBe(driver);
    expect(await loadPg(found)).toBe(driver);
    expect(asked).toEqual(['pg', 'pg', 'pg']);
  });
});
