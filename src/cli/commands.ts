import { EXIT, EXIT_CODES_HELP, processIo, reportFailure, UsageError, type Io } from './io.js';
import { wantsHelp } from './args.js';
import { cliInvocation } from './invocation.js';
import { DEMO_USAGE, UI_USAGE, UPSTREAM_USAGE, inspectHelpFor } from './help.js';
import { needsSqlite } from './load-sqlite.js';

/**
 * The `session-state-kit` command. Each command parses its own arguments (node:util parseArgs) and
 * throws a CliError carrying its exit code; this file only dispatches and reports.
 */

const USAGE = `session-state-kit <command> [options]

Commands:
  demo          run a scripted manager/child/person scenario (SQLite adapter, in-memory database)
  inspect       read-only views of a SQLite state database: heads, changes, cursors, notices, stats
  conformance   run the conformance suite against an implementation
  bench         run the benchmarks (from a checkout of the repository)
  mcp           MCP server on stdio: session tools and notice resources for agents
  hook          agent hooks (claude-code, codex, gemini, qwen, copilot): record a person's turn, hand the session its notices
  init          set up Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI (hooks, MCP server, Codex trust with --trust) or OpenCode (a plugin, MCP server)
  doctor        check that the hooks init wrote are installed, trusted and run
  upstream scan show how the upstream monitor classifies each line of a transcript, and why
  ui            a live view of sessions, timelines, watches and notices in the browser (read-only)
  help [cmd]    show this help, or a command's

Run "session-state-kit <command> --help" for a command's options; --version prints the version.

${EXIT_CODES_HELP}`;

const COMMANDS = ['demo', 'inspect', 'conformance', 'bench', 'mcp', 'hook', 'init', 'doctor', 'upstream', 'ui', 'help'] as const;

async function commandHelp(command: string, io: Io): Promise<number> {
  switch (command) {
    case 'demo':
    case 'inspect':
    case 'conformance':
    case 'bench':
    case 'mcp':
    case 'hook':
    case 'init':
    case 'doctor':
    case 'upstream':
    case 'ui':
      // Each command prints its own help, so the text lives in one place.
      return main([command, '--help'], io);
    default:
      throw new UsageError(`no help for unknown command: ${command}`, [`commands: ${COMMANDS.join(', ')}`]);
  }
}

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'demo':
        if (wantsHelp(rest)) return (io.out(DEMO_USAGE), EXIT.ok);
        // Commands load on demand: --help and usage errors stay fast, and only the commands that
        // need better-sqlite3 (a native addon that may have failed to build) load it.
        return await (await import('./demo-command.js')).demoCommand(rest, io);
      case 'inspect': {
        if (wantsHelp(rest)) return (io.out(inspectHelpFor(rest)), EXIT.ok);
        const { inspectCommand } = await needsSqlite(() => import('./inspect.js'));
        return await inspectCommand(rest, io);
      }
      case 'conformance':
        return await (await import('./conformance.js')).conformanceCommand(rest, { out: io.out, err: io.err, isTTY: process.stderr.isTTY === true });
      case 'bench':
        return await (await import('./bench.js')).benchCommand(rest, io);
      case 'mcp':
        // The MCP SDK is an optional peer dependency: only this command loads it.
        return await (await import('./mcp.js')).mcpCommand(rest, io);
      case 'hook':
        return await (await import('./hook.js')).hookCommand(rest, io);
      case 'init':
        return await (await import('./init.js')).initCommand(rest, io);
      case 'doctor':
        return await (await import('./doctor.js')).doctorCommand(rest, io);
      case 'upstream':
        if (wantsHelp(rest)) return (io.out(UPSTREAM_USAGE), EXIT.ok);
        return await (await import('./upstream-scan.js')).upstreamCommand(rest, io);
      case 'ui':
        if (wantsHelp(rest)) return (io.out(UI_USAGE), EXIT.ok);
        return await (await import('./ui.js')).uiCommand(rest, io);
      case 'help':
        if (rest[0] !== undefined) return await commandHelp(rest[0], io);
        io.out(USAGE);
        return EXIT.ok;
      case undefined:
      case '--help':
      case '-h':
        io.out(USAGE);
        return EXIT.ok;
      case '--version':
      case '-V':
        io.out((await import('./version.js')).packageVersion());
        return EXIT.ok;
      default:
        throw new UsageError(
          command.startsWith('-') ? `unknown option ${command}; options go after the command` : `unknown command: ${command}`,
          [`commands: ${COMMANDS.join(', ')}`, `see: ${cliInvocation()} --help`],
        );
    }
  } catch (error) {
    return reportFailure(error, io);
  }
}
