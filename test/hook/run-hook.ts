import { spawn } from 'node:child_process';

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI with `hook ...`, the payload (an object, raw text or raw bytes) on stdin, as
 * Claude Code does. `stdout: 'ignore'` starts it with stdout on /dev/null, as a closed stdout ends up.
 * The environment is the test's without the mark Copilot sets for what it starts (T54), plus `env`.
 */
export function runHook(cli: string, args: readonly string[], payload: unknown, options: { stdout?: 'pipe' | 'ignore'; env?: Record<string, string> } = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const { COPILOT_CLI: _, ...inherited } = process.env;
    const child = spawn(process.execPath, [cli, 'hook', ...args], { stdio: ['pipe', options.stdout ?? 'pipe', 'pipe'], env: { ...inherited, NO_COLOR: '1', ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
    child.stdin!.end(typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload));
  });
}
