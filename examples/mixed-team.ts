/**
 * A mixed team: a person works in one agent CLI (Codex, Qwen Code or GitHub Copilot CLI), a
 * manager session runs in Claude Code, one state file. The manager watches the person's session;
 * the person's next prompt there is one notice, which the manager's next Claude Code prompt
 * carries to its model (PROTOCOL.md T40-T46, T52-T59).
 *
 * Run for real (the CLIs installed and logged in), from a scratch project directory:
 *   npx tsx examples/mixed-team.ts            # the person in Codex
 *   npx tsx examples/mixed-team.ts qwen       # or in Qwen Code, or copilot
 * Copilot runs a folder's hooks only once the folder is trusted: answer its question the first
 * time you start it there. The test suite runs this offline (test/agents/mixed-team.test.ts),
 * the binaries pointed at loopback stand-ins for their model APIs through `personArgs` and the
 * environments.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createSqliteStore } from 'session-state-kit/sqlite';

/** How the person's CLI is set up, started and resumed from a script. */
interface PersonCli {
  /** The agent id of its sessions ("agent:<id>:<session id>"). */
  agentId: string;
  /** `session-state-kit init …` for it (the database is added). */
  init: string[];
  /** The program, by default. */
  command: string[];
  /** A first prompt in a new session; `id` is the session id to use where the CLI takes one. */
  start: (prompt: string, id: string) => string[];
  /** The session id the first run used: `id`, or what the CLI printed. */
  sessionId: (output: string, id: string) => string | undefined;
  /** A later prompt in the same session. */
  resume: (prompt: string, id: string) => string[];
}

export const PERSON_CLIS = {
  codex: {
    agentId: 'codex',
    // Codex runs hooks only once trusted: --trust records it for the entries init wrote.
    init: ['init', 'codex', '--user', '--trust'],
    command: ['codex'],
    start: (prompt) => ['exec', '--skip-git-repo-check', prompt],
    sessionId: (output) => /session id: ([0-9a-f-]{36})/.exec(output)?.[1],
    resume: (prompt, id) => ['exec', '--skip-git-repo-check', 'resume', id, prompt],
  },
  qwen: {
    agentId: 'qwen',
    init: ['init', 'qwen'],
    command: ['qwen'],
    start: (prompt, id) => ['-p', prompt, '--session-id', id],
    sessionId: (_output, id) => id,
    resume: (prompt, id) => ['-p', prompt, '--resume', id],
  },
  copilot: {
    agentId: 'copilot',
    init: ['init', 'copilot'],
    command: ['copilot'],
    start: (prompt, id) => ['-p', prompt, '--session-id', id],
    sessionId: (_output, id) => id,
    resume: (prompt, id) => ['-p', prompt, '--resume', id],
  },
} satisfies Record<string, PersonCli>;

export type PersonCliName = keyof typeof PERSON_CLIS;

export interface MixedTeamOptions {
  /** Where the team works (the Claude Code project); the state file goes in it. */
  project: string;
  /** The CLI the person works in (default codex). */
  person?: PersonCliName;
  /** How to start each program: `['npx', 'session-state-kit']`, the person's CLI and `['claude']` by default. */
  kit?: string[];
  personCommand?: string[];
  claude?: string[];
  /** Extra arguments for every run of the person's CLI, environment for every process, and for each CLI (the tests' stand-ins). */
  personArgs?: string[];
  env?: NodeJS.ProcessEnv;
  personEnv?: NodeJS.ProcessEnv;
  claudeEnv?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export async function main(o: MixedTeamOptions): Promise<{ personSession: string; managerSession: string; noticesHanded: number }> {
  const log = o.log ?? console.log;
  const person: PersonCli = PERSON_CLIS[o.person ?? 'codex'];
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
  const personCommand = o.personCommand ?? person.command;
  const runPerson = (args: string[]) => run(personCommand, [...(o.personArgs ?? []), ...args], o.personEnv);
  const claude = o.claude ?? ['claude'];

  // 1. Set up both CLIs on one state file.
  await run(kit, [...person.init, '--db', db]);
  await run(kit, ['init', 'claude-code', '--db', db]);

  // 2. The person starts a session; the manager session watches it.
  const proposed = randomUUID();
  const started = await runPerson(person.start('start on the parser', proposed));
  const personId = person.sessionId(started, proposed);
  if (personId === undefined) throw new Error(`${person.agentId} printed no session id`);
  const personSession = `agent:${person.agentId}:${personId}`;
  const managerId = randomUUID();
  const managerSession = `agent:claude-code:${managerId}`;
  const store = createSqliteStore({ path: db });
  store.watch({ watcherSessionKey: managerSession, targetSessionKey: personSession, agentId: person.agentId });
  store.close();
  log(`${managerSession} watches ${personSession}`);

  // 3. The person types again (the same session, resumed): one notice for the manager.
  await runPerson(person.resume('also handle empty input', personId));
  const check = createSqliteStore({ path: db });
  const noticesHanded = check.pendingNotices(managerSession).length;
  check.close();
  log(`pending for the manager: ${noticesHanded}`);

  // 4. The manager's next prompt carries it to its model (the hook hands it over and acks it).
  await run(claude, ['-p', 'what changed?', '--session-id', managerId], o.claudeEnv);
  log('the manager was told; it reconciles with session_status before acting');
  return { personSession, managerSession, noticesHanded };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const name = process.argv[2] ?? 'codex';
  if (!(name in PERSON_CLIS)) throw new Error(`unknown CLI ${name}: one of ${Object.keys(PERSON_CLIS).join(', ')}`);
  await main({ project: process.cwd(), person: name as PersonCliName });
}
