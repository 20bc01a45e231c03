import { describe, expect, it } from 'vitest';
import { inspectCommand } from '../../src/cli/inspect.js';
import { CliError } from '../../src/cli/io.js';
import { createPostgresStore } from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);

async function inspect(argv: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const io = { out: (l: string) => void out.push(l), err: (l: string) => void out.push(`ERR ${l}`) } as never;
  const code = await inspectCommand(argv, io);
  return { code, out };
}

describe('inspect --pg <url>', () => {
  it('reads heads, changes, cursors, notices and stats of a PostgreSQL store, as the store answers', async () => {
    const schema = pg.schema();
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: memoryLogger() });
    await store.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:peer', agentId: 'main' });
    await store.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    await store.record({ sessionKey: 'agent:main:peer', agentId: 'main', kind: 'goal_changed', actorType: 'agent', summary: 'goal updated' });
    const base = ['--pg', pg.url(), '--schema', schema];

    const heads = await inspect([...base, 'heads', '--json']);
    expect(JSON.parse(heads.out.join('\n'))).toMatchObject([{ sessionKey: 'agent:main:peer', agentId: 'main', stateVersion: 2, retainedEvents: 2, earliestAvailableSequence: 1 }]);
    const changes = await inspect([...base, 'changes', 'agent:main:peer', '--since', '1', '--json']);
    expect(JSON.parse(changes.out.join('\n'))).toEqual(await store.changesSince({ sessionKey: 'agent:main:peer', agentId: 'main', since: 1 }));
    const notices = await inspect([...base, 'notices', 'agent:main:main', '--json']);
    expect(JSON.parse(notices.out.join('\n'))).toEqual(await store.pendingNotices('agent:main:main'));
    const cursors = await inspect([...base, 'cursors', '--json']);
    expect(JSON.parse(cursors.out.join('\n'))).toMatchObject([{ watcherSessionKey: 'agent:main:main', lastSeenSequence: 0, notifiedSequence: 1, materialSequence: 2, pending: true }]);
    const stats = await inspect([...base, 'stats', '--now', String(T0)]);
    expect(stats.out.join('\n')).toMatch(/database\s+postgres:\/\/postgres:\*\*\*@/);
    expect(stats.out.join('\n')).not.toContain('ssk-test'); // the password never printed
    expect(stats.out.join('\n')).toMatch(/pending pairs\s+1/);
    // reading changed nothing
    expect((await store.pendingNotices('agent:main:main')).length).toBe(1);
    await store.close();
  });

  it('a schema without a store, or an unreachable server, is a database problem (exit 3) with a hint', async () => {
    await expect(inspect(['--pg', pg.url(), '--schema', 'nobody_here', 'heads'])).rejects.toMatchObject({ exitCode: 3 });
    const e = await inspect(['--pg', 'postgres://u:p@127.0.0.1:1/db', 'heads']).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).message).not.toContain(':p@');
  });
});
