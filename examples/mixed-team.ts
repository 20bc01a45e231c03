/**
 * A mixed team: a person works in Codex, a manager session runs in Claude Code, one state file.
 * The manager watches the Codex session; the person's next prompt there is one notice, which the
 * manager's next Claude Code prompt carries to its model (PROTOCOL.md T40-T46).
 *
 * Run for real (both CLIs installed and logged in), from a scratch project directory:
 *   npx tsx examples/mixed-team.ts
 * The test suite runs it offline (test/agents/mixed-team.test.ts), the binaries pointed at
 * loopback stand-ins for their model APIs through `codexArgs` and `claudeEnv`.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createSqliteStore } from 'session-state-kit/sqlite';

export interface MixedTeamOptions {
  /** Where the team works (the Claude Code project); the state file goes in it. */
  project: string;
  /** How to start each program: `['npx', 'session-state-kit']`, `['codex']`, `['claude']` by default. */
  kit?: string[];
  codex?: string[];
  claude?: string[];
  /** Extra arguments for `codex exec` and environment for every process (the tests' stand-ins). */
  codexArgs?: string[];
  env?: NodeJS.ProcessEnv;
  claudeEnv?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export async function main(o: MixedTeamOptions): Promise<{ codexSession: string; managerSession: string; noticesHanded: number }> {
  const log = o.log ?? console.log;
  const db = join(o.project, '.session-state-kit', 'state.db');
  const run = (command: string[], args: string[], env?: NodeJS.ProcessEnv) =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(command[0]!, [...command.slice(1), ...args], { cwd: o.project, env: { ...process.env, ...o.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${[...command, ...args].join(' ')} failed: ${stderr || error.message}`)) : resolve(`${stdout}\n${stderr}`),
      );
      // Codex reads a prompt from stdin when it is not a terminal: give it none.
      child.stdin?.end();
    });
  const kit = o.kit ?? ['npx', 'session-state-kit'];
  const codex = [...(o.codex ?? ['codex']), 'exec', '--skip-git-repo-check', ...(o.codexArgs ?? [])];
  const claude = o.claude ?? ['claude'];

  // 1. Set up both CLIs on one state file (Codex's hooks trusted: it runs no other).
  await run(kit, ['init', 'codex', '--user', '--trust', '--db', db]);
  await run(kit, ['init', 'claude-code', '--db', db]);

  // 2. The person starts in Codex; the manager session watches it.
  const started = await run(codex, ['start on the parser']);
  const thread = /session id: ([0-9a-f-]{36})/.exec(started)?.[1];
  if (thread === undefined) throw new Error('codex printed no session id');
  const codexSession = `agent:codex:${thread}`;
  const managerId = randomUUID();
  const managerSession = `agent:claude-code:${managerId}`;
  const store = createSqliteStore({ path: db });
  store.watch({ watcherSessionKey: managerSession, targetSessionKey: codexSession, agentId: 'codex' });
  store.close();
  log(`${managerSession} watches ${codexSession}`);

  // 3. The person types again (a resumed Codex session): one notice for the manager.
  await run(codex, ['resume', thread, 'also handle empty input']);
  const check = createSqliteStore({ path: db });
  const noticesHanded = check.pendingNotices(managerSession).length;
  check.close();
  log(`pending for the manager: ${noticesHanded}`);

  // 4. The manager's next prompt carries it to its model (the hook hands it over and acks it).
  await run(claude, ['-p', 'what changed?', '--session-id', managerId], o.claudeEnv);
  log('the manager was told; it reconciles with session_status before acting');
  return { codexSession, managerSession, noticesHanded };
}

if (import.meta.url === `file://${process.argv[1]}`) await main({ project: process.cwd() });
