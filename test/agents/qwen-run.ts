import { spawn } from 'node:child_process';
import { QWEN_AUTH_ARGS, type BinaryInfo } from './binaries.js';

/**
 * One Qwen Code process fed prompts one at a time over `--input-format stream-json`, each sent
 * only once the previous one's `result` line arrived: several turns, a `/compress` and a `/clear`
 * in one session, as a person types them (`-p` runs one prompt per process). The caller's
 * environment is not inherited but PATH, as in runBinary.
 */
export interface QwenSessionRun {
  code: number | null;
  /** The `result` line of each message, in order. */
  results: { subtype: string; session_id: string; result?: string }[];
  stderr: string;
  ms: number;
}

export function runQwenSession(qwen: BinaryInfo, messages: readonly string[], options: { cwd: string; env: Record<string, string>; args?: readonly string[]; timeoutMs?: number }): Promise<QwenSessionRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(qwen.command[0]!, [...qwen.command.slice(1), ...QWEN_AUTH_ARGS, '--input-format', 'stream-json', '--output-format', 'stream-json', ...(options.args ?? [])], {
      cwd: options.cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const results: QwenSessionRun['results'] = [];
    let stderr = '';
    let buffer = '';
    let next = 0;
    const send = () => {
      if (next < messages.length) child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: messages[next++] } })}\n`);
      else child.stdin.end();
    };
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        let message: { type?: unknown } | undefined;
        try {
          message = JSON.parse(line) as { type?: unknown };
        } catch {
          continue;
        }
        if (message.type === 'result') {
          results.push(message as QwenSessionRun['results'][number]);
          send();
        }
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, results, stderr, ms: Date.now() - started });
    });
    send();
  });
}
