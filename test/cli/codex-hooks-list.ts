import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** One hook as `codex app-server`'s `hooks/list` reports it (the fields the tests read). */
export interface CodexListedHook {
  key: string;
  command: string;
  currentHash: string;
  trustStatus: string;
  eventName: string;
  statusMessage: string | null;
  async: boolean;
}

/**
 * T46-T47: asks a real `codex app-server` (JSON-RPC on stdio) for its hook listing in `cwd`, as
 * Codex's own /hooks screen does: the truth the kit's trust hashes and doctor's verdicts are held
 * against. `home` is both HOME and the parent of CODEX_HOME.
 */
export async function codexHooksList(binary: string, home: string, cwd: string): Promise<CodexListedHook[]> {
  const child = spawn(binary, ['app-server'], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: join(home, '.codex') }, stdio: ['pipe', 'pipe', 'ignore'] });
  const answers = new Map<number, (v: Record<string, unknown>) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, i)) as { id?: number };
      buffer = buffer.slice(i + 1);
      if (typeof message.id === 'number') answers.get(message.id)?.(message as Record<string, unknown>);
    }
  });
  const call = (id: number, method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`codex app-server did not answer ${method}`)), 60_000);
      answers.set(id, (v) => (clearTimeout(timer), resolve(v)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    await call(1, 'initialize', { clientInfo: { name: 'session-state-kit-tests', version: '0' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'initialized' })}\n`);
    const listed = (await call(2, 'hooks/list', { cwds: [cwd] })) as { result: { data: { hooks: CodexListedHook[] }[] } };
    return listed.result.data.flatMap((d) => d.hooks);
  } finally {
    child.kill();
  }
}
