import type { MaybePromise } from '../../spec/index.js';
import type { StorePendingSource } from '../feed/index.js';
import { checkCaller, type SessionsPageRequest, type SessionsPageRow, type ToolStore } from '../tools/index.js';
import { MAX_POLL_MS, parseCommand, parseInteger, wantsHelp } from './args.js';
import { CliError, EXIT, EXIT_CODES_HELP, UsageError, type ExitCode, type Io } from './io.js';
import { loadSqlite } from './load-sqlite.js';
import { CLAUDE_CODE_AGENT, sharedDbProblem } from './hook.js';
import { keyPart } from '../integrations/hook-plan.js';
import { packageVersion } from './version.js';
import { messageOf } from '../shared/logger.js';

/**
 * T19: the agent CLIs that tell a stdio MCP server which session started it, and the variable they
 * set (checked with each real binary). A CLI missing here gives its server no such thing, and its
 * server runs unbound (T44).
 */
export const CALLER_SESSION_ENV: Record<string, string> = {
  'claude-code': 'CLAUDE_CODE_SESSION_ID',
  // T59: Qwen Code 0.24.4 sets it in the environment of every stdio MCP server it starts.
  qwen: 'QWEN_CODE_SESSION_ID',
  // T55: Copilot CLI 1.0.102 sets it to the session's id, the one its hooks get, and starts the
  // servers again for the new session after /clear.
  copilot: 'COPILOT_AGENT_SESSION_ID',
};

/**
 * T64: CLIs whose servers cannot be bound to their caller, and why (checked with each real binary):
 * asked to, the server says so instead of naming no variable.
 */
const UNBINDABLE: Record<string, string> = {
  // T64: 1.18.33 sets OPENCODE=1 and OPENCODE_PID in a stdio server's environment, nothing per session.
  opencode: 'OpenCode names no session to its MCP servers (it sets OPENCODE=1 and OPENCODE_PID only), and one OpenCode process serves many sessions',
};

export const MCP_USAGE = `session-state-kit mcp --db <file> [--session <key> | --caller-session <runtime>] [--visibility <scope>] [--agent <id>] [--poll-ms <n>]
session-state-kit mcp --pg <url> [--schema <name>] [--session <key> | --caller-session <runtime>] [--visibility <scope>] [--agent <id>]

An MCP server on stdio (PROTOCOL.md T8) for agents: the tools session_status, sessions_list,
session_watch, session_unwatch and session_notices over one state database, and each watcher's
pending notices as the resource session-state://notices/<watcher key, percent-encoded>, with
resources/updated sent to subscribers when a notice arrives, from this or any other process.

  --db <file>      SQLite state database (created if missing); share it between agents
  --pg <url>       PostgreSQL instead (postgres://user:password@host/db); needs the pg package
  --schema <name>  PostgreSQL schema holding the tables (default public)
  --agent <id>     the agent a bare session key (global, main) belongs to when a call leaves
                   agentId out (T2)
  --poll-ms <n>    how often another process's commits are looked for (SQLite; default 200)
  --session <key>  bind the server to one agent-scoped session (T10): the tools and resources act
                   only on its own notices, and other sessions only within --visibility
  --caller-session <runtime>
                   bind to the session of the agent CLI that started the server, as its hook names
                   it (T19): "agent:<agent>:<id>" with <id> from the variable that CLI sets for its
                   stdio MCP servers and <agent> from --agent (default: the runtime's name):
${Object.entries(CALLER_SESSION_ENV).map(([runtime, variable]) => `                     ${runtime.padEnd(12)} ${variable}`).join('\n')}
  --claude-code-session
                   the same as --caller-session claude-code
  --visibility <s> self, tree (default: itself and the sessions it spawned), agent or all

Without --session the server is unbound: any client can read and acknowledge any session's
notices by naming its key. Run it unbound only for a trusted runtime; it says so on stderr.

Register it with an MCP client, e.g. in .mcp.json:
  {"mcpServers": {"session-state": {"command": "npx", "args": ["session-state-kit", "mcp", "--db", "/tmp/team.db", "--claude-code-session"]}}}

Needs the @modelcontextprotocol/sdk package (an optional peer dependency).

${EXIT_CODES_HELP}`;

/** The server version MCP clients see (the package's). */
const VERSION = packageVersion();

type McpModule = typeof import('../mcp/stdio.js');

/** The SDK is an optional peer: load it (and the server built on it) only here, and say how to get it. */
export async function loadMcp(): Promise<McpModule> {
  try {
    return await import('../mcp/stdio.js');
  } catch (error) {
    const message = messageOf(error);
    if (/@modelcontextprotocol\/sdk/.test(message)) {
      throw new CliError(EXIT.failure, `the mcp command needs the @modelcontextprotocol/sdk package: ${message.split('\n')[0]}`, [
        'install it next to session-state-kit: npm install @modelcontextprotocol/sdk',
      ]);
    }
    throw error;
  }
}

const VISIBILITY_VALUES = ['self', 'tree', 'agent', 'all'] as const;


/**
 * T10, T19: the session the server is bound to. Claude Code tells a stdio MCP server nothing about
 * its session in the protocol (clientInfo is generic), but sets CLAUDE_CODE_SESSION_ID in the
 * server's environment: --claude-code-session turns it into the hook's key for that session.
 */
export function bindingOf(
  values: { session?: string | undefined; 'claude-code-session'?: boolean | undefined; 'caller-session'?: string | undefined; visibility?: string | undefined; agent?: string | undefined },
  env: Record<string, string | undefined>,
): { caller?: string; visibility?: (typeof VISIBILITY_VALUES)[number] } {
  const runtime = values['caller-session'] ?? (values['claude-code-session'] ? CLAUDE_CODE_AGENT : undefined);
  if (values['caller-session'] !== undefined && values['claude-code-session']) throw new UsageError('--caller-session and --claude-code-session name the caller twice: pass one');
  if (values.session !== undefined && runtime !== undefined) throw new UsageError('--session and --caller-session name the caller twice: pass one');
  let caller = values.session;
  if (runtime !== undefined) {
    const variable = Object.hasOwn(CALLER_SESSION_ENV, runtime) ? CALLER_SESSION_ENV[runtime] : undefined;
    if (variable === undefined && Object.hasOwn(UNBINDABLE, runtime)) throw new UsageError(`--caller-session ${runtime}: ${UNBINDABLE[runtime]}`, ['run it unbound (as init registers it), where every session on the database is yours (T64), or bind one server to one session: --session agent:<agent>:<session id>']);
    if (variable === undefined) throw new UsageError(`--caller-session knows ${Object.keys(CALLER_SESSION_ENV).join(', ')}, got ${JSON.stringify(runtime)}`, ['a CLI that names no session to its MCP server runs it unbound (T44), or bind explicitly: --session agent:<agent>:<session id>']);
    const id = env[variable];
    if (id === undefined || id.length === 0) {
      throw new UsageError(`--caller-session ${runtime} needs ${variable} in the environment (${runtime} sets it for the stdio MCP servers it starts)`, ['or bind explicitly: --session agent:<agent>:<session id>']);
    }
    // T19: the key the hook gives the same session (hook-plan.ts keyPart).
    caller = `agent:${values.agent ?? runtime}:${keyPart(id)}`;
  }
  if (values.visibility !== undefined && !(VISIBILITY_VALUES as readonly string[]).includes(values.visibility)) {
    throw new UsageError(`--visibility must be one of ${VISIBILITY_VALUES.join(', ')}, got ${JSON.stringify(values.visibility)}`);
  }
  if (values.visibility !== undefined && caller === undefined) throw new UsageError('--visibility goes with --session or --claude-code-session (an unbound server sees everything)');
  try {
    checkCaller(caller, values.visibility);
  } catch (error) {
    throw new UsageError(`the session a server is bound to must be an agent-scoped session key (agent:<agentId>:<rest>), got ${JSON.stringify(caller)}: ${messageOf(error)}`);
  }
  return { ...(caller !== undefined ? { caller } : {}), ...(values.visibility !== undefined ? { visibility: values.visibility as (typeof VISIBILITY_VALUES)[number] } : {}) };
}

export async function mcpCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) return (io.out(MCP_USAGE), EXIT.ok);
  const { values, positionals } = parseCommand(
    argv,
    {
      db: { type: 'string' },
      pg: { type: 'string' },
      schema: { type: 'string' },
      agent: { type: 'string' },
      'poll-ms': { type: 'string' },
      session: { type: 'string' },
      'claude-code-session': { type: 'boolean' },
      'caller-session': { type: 'string' },
      visibility: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'mcp',
  );
  if (positionals.length > 0) throw new UsageError(`mcp takes no arguments, got: ${positionals.join(' ')}`, ['see: session-state-kit mcp --help']);
  if ((values.db === undefined) === (values.pg === undefined)) throw new UsageError('mcp needs exactly one of --db <file> or --pg <url>', ['see: session-state-kit mcp --help']);
  if (values.schema !== undefined && values.pg === undefined) throw new UsageError('--schema goes with --pg');
  if (values.agent !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(values.agent)) throw new UsageError(`--agent must be an agent id (letters, digits, _ . -), got ${JSON.stringify(values.agent)}`);
  const pollIntervalMs = values['poll-ms'] === undefined ? undefined : parseInteger(values['poll-ms'], '--poll-ms', 1, MAX_POLL_MS);
  // T18: a database nobody else opens shares nothing.
  const dbProblem = values.db === undefined ? undefined : sharedDbProblem(values.db);
  if (dbProblem !== undefined) throw new UsageError(dbProblem);
  const binding = bindingOf(values, process.env);

  // T14: the store's logged failures are counted, so a degraded read is answered as an error.
  let failures = 0;
  const stderrLogger = {
    warn: (message: string, details?: Record<string, unknown>) => void process.stderr.write(`session-state-kit mcp: ${message}${details ? ` ${JSON.stringify(details)}` : ''}\n`),
    error: (message: string, details?: Record<string, unknown>) => {
      failures++;
      process.stderr.write(`session-state-kit mcp: ${message}${details ? ` ${JSON.stringify(details)}` : ''}\n`);
    },
  };

  const mcp = await loadMcp();
  const { createNoticeFeed } = await import('../feed/index.js');
  let store: ToolStore & StorePendingSource & { sessionsPage(request: SessionsPageRequest): MaybePromise<SessionsPageRow[]> };
  if (values.db !== undefined) {
    const path = values.db;
    const sqlite = await loadSqlite();
    try {
      store = sqlite.createSqliteStore({ path, now: Date.now, logger: stderrLogger });
    } catch (error) {
      throw new CliError(EXIT.database, `${path}: ${messageOf(error)}`);
    }
  } else {
    const postgres = await import('../postgres/index.js');
    try {
      store = await postgres.createPostgresStore({ connectionString: values.pg!, now: Date.now, logger: stderrLogger, ...(values.schema ? { schema: values.schema } : {}) });
    } catch (error) {
      throw new CliError(EXIT.database, `PostgreSQL: ${messageOf(error)}`);
    }
  }
  // The feed's own failures are its, not a tool call's (T14 counts the store's).
  const feedLogger = { warn: stderrLogger.warn, error: (m: string, d?: Record<string, unknown>) => stderrLogger.warn(m, d) };
  // T10: said once the server is about to run, so a failure to start is the only line.
  if (binding.caller === undefined) stderrLogger.warn('unbound (no --session): any client of this server can read and acknowledge any session\'s notices; bind it with --session <key> or --claude-code-session unless a trusted runtime sets the arguments');
  const feed = createNoticeFeed(store, { logger: feedLogger, ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}) });
  try {
    await mcp.serveStdio({
      store,
      feed,
      pending: store,
      logger: stderrLogger,
      version: VERSION,
      storeFailures: () => failures,
      ...binding,
      ...(values.agent !== undefined ? { defaultAgentId: values.agent } : {}),
      // T4, T15: the sessions the database has heads for, one keyed page per call.
      listSessionsPage: (request) => store.sessionsPage(request),
    });
  } finally {
    feed.close();
    await store.close();
  }
  return EXIT.ok;
}
