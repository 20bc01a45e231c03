import { LIMITS } from '../../spec/schemas/limits.js';
import { EXIT_CODES_HELP } from './io.js';

/**
 * Help texts, in a module with no heavy imports: "--help" and usage errors answer without loading
 * the schemas, the core or better-sqlite3.
 */

export const DEMO_USAGE = `session-state-kit demo [--store sqlite|memory] [--db <new-file> | --keep]

A scripted scenario (one manager, one child, one person) printed step by step: events recorded,
one coalesced notice, the drained follow-up, the changesSince delta, a historyGap after pruning,
and a restart after which the pending notice is still there, read from the durable cursors.

  --store sqlite   the SQLite adapter (default), on an in-memory database (':memory:')
  --store memory   the pure in-memory reference store
  --db <new-file>  run on a new SQLite file instead (it must not exist); step 8 then closes and
                   reopens the file as a real restart would, and the file is kept for
                   "session-state-kit inspect <new-file> ..."; the scenario's clock then ends
                   at the wall clock, so a store opened on the file later keeps what it shows
  --keep           as --db, on a new file in the temp directory (npm run demo uses this)

${EXIT_CODES_HELP}`;

export const SUBCOMMANDS = ['heads', 'changes', 'cursors', 'notices', 'stats'] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

const FOOTER = `
The database is opened read-only and never written; it may be in use by a live process (WAL).
--json prints the result as JSON for scripts.

${EXIT_CODES_HELP}`;

export const INSPECT_USAGE = `session-state-kit inspect <db-file> <subcommand> [options]
       session-state-kit inspect --pg <postgres-url> [--schema <name>] <subcommand> [options]

Read-only views of a SQLite state database (a file written by createSqliteStore({ path })), or with
--pg of a PostgreSQL store (createPostgresStore; --schema when it is not in "public"), read in one
read-only snapshot.

Subcommands:
  heads                                  sessions with their stateVersion and pruned watermark
  changes <sessionKey> [--agent <id>] [--since <n>] [--limit <n>]
                                         the changesSince response the store would return
  cursors [--watcher <key>] [--target <key>]
                                         watch cursors: last seen, notified, material, provenance, pending
  notices <watcher>                      the exact pending notice lines of a watcher
  stats                                  rows, sessions, cursors, pending pairs, age, cap, schema, size

Run "session-state-kit inspect <subcommand> --help" for one subcommand.
${FOOTER}`;

export const INSPECT_HELP: Record<Subcommand, string> = {
  heads: `session-state-kit inspect <db-file> heads [--json]

One row per session identity (session key, agent id): its head stateVersion (R5), its pruned
watermark prunedMaxSequence (R33, R42: a changesSince with since below it reports historyGap), the
events still retained, the earliest available sequence (R32) and when the head last moved.
${FOOTER}`,
  changes: `session-state-kit inspect <db-file> changes <sessionKey> [--agent <id>] [--since <n>] [--limit <n>] [--json]

The changesSince response (R30-R33) exactly as the store would return it: events with a sequence
above --since (default 0), at most --limit of them (default and maximum ${LIMITS.maxChangesPerRead}),
historyGap, truncated and earliestAvailableSequence. Reading never moves a cursor (R34).

  --agent <id>    the session's agent id; may be left out for an agent-scoped key
                  (agent:<id>:...) or a key only one agent uses
  --since <n>     a stateVersion the caller has seen (a notice quotes it)
  --limit <n>     page size

Exit 4 when the database has no such session (see "inspect <db-file> heads").
${FOOTER}`,
  cursors: `session-state-kit inspect <db-file> cursors [--watcher <key>] [--target <key>] [--json]

Watch cursors (R20): per watcher and target identity, L = last seen, N = notified (the frozen
watermark a pending notice quotes), M = material (the newest event that should notify), the
provenance (spawn or explicit, R14/R16/R21), updatedAt (R44 expiry), and whether a notice is
pending (N > L).

  --watcher <key>  only cursors of this watcher session
  --target <key>   only cursors watching this target session key

Exit 4 when a filter names a session the database does not mention at all.
${FOOTER}`,
  notices: `session-state-kit inspect <db-file> notices <watcher> [--json]

The watcher's pending notices, exactly as pendingNotices returns them: one per target with N > L,
quoting L, in R26 order. The lines are the exact notice text (R23), computed by the core's
makeNotice. Pending notices are the durable cursors themselves, so every process that opens the
file sees these same lines.

Exit 4 when the database does not mention the watcher at all.
${FOOTER}`,
  stats: `session-state-kit inspect <db-file> stats [--now <time>] [--max-rows <n>] [--retention-days <n>] [--json]

Retained rows, sessions, cursors, pending pairs, the oldest event's age, rows left until the
R41 cap, events and cursors a prune would remove now (R40, R44), the schema version and the
file size.

  --now <time>            ISO-8601 instant or epoch ms to measure ages from (default: now)
  --max-rows <n>          the store's maxRows, if configured (default ${LIMITS.maxRows.toLocaleString('en-US')})
  --retention-days <n>    the store's retention, if configured (default ${LIMITS.retentionMs / 86_400_000})
${FOOTER}`,
};


/** The inspect help for the subcommand named among the arguments (`inspect heads --help`, `inspect x.db heads --help`). */
export function inspectHelpFor(argv: readonly string[]): string {
  const positionals = argv.filter((a) => !a.startsWith('-'));
  const sub = [positionals[1], positionals[0]].find((s): s is Subcommand => s !== undefined && (SUBCOMMANDS as readonly string[]).includes(s));
  return sub ? INSPECT_HELP[sub] : INSPECT_USAGE;
}

export const UPSTREAM_USAGE = `session-state-kit upstream scan <transcript.jsonl> [--dialect auto|claude|codex] [--own <text>]... [--json]

How the upstream monitor (PROTOCOL.md section 9, U4 and U6) classifies every line of a real
transcript, and why: a Claude Code session file (~/.claude/projects/<project>/<id>.jsonl) or a
Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl). One line of output per record:

  human      a person typed it: it would count as a human turn
  own echo   human-shaped, but equal to a message our side sent (--own, U4): not counted
  machine    written by a program: assistant, tool results, task notifications, other sessions,
             scheduled prompts, runtime wrappers (the not-a-person markers)
  meta       bookkeeping: meta and compaction records, titles, snapshots, blank or broken lines
  waiting    bytes after the last newline: a line still being written, classified once complete

The file is read in 1 MiB pieces; lines longer than that go through the same bounded long-line
reader as the monitor. Nothing is written. A Codex sub-agent or exec rollout (its first record
says so) shows its prompts as machine (machine-thread): the monitor never links such a thread.

  --dialect <d>   claude or codex (default auto: codex when the first record is a Codex envelope or
                  a pre-envelope Codex record; the header says what decided)
  --own <text>    a message our side sent, for the self-echo column (repeatable; image-only: "")
  --json          one JSON object per line, then {"summary": ...}

${EXIT_CODES_HELP}`;

export const UI_USAGE = `session-state-kit ui --db <file> | --pg <url> [--schema <name>] [--port <n>] [--host <addr>] [--token-file <path>] [--open]

A live view of the team in a browser: sessions with their heads and retained history, each
session's timeline (actors in colour, history gaps shown as gaps), the watch graph with every
pending notice and its exact text (R23), and events per minute by actor. New events, notices and
acks appear without a reload. The store is opened read-only and never written (PROTOCOL.md
section 13). Runs until Ctrl-C.

  --db <file>       a SQLite state database (as written by createSqliteStore({ path }))
  --pg <url>        a PostgreSQL store instead; --schema when it is not in "public"
  --port <n>        port to listen on (default 0: any free port; the address is printed)
  --host <addr>     address to bind (default 127.0.0.1)
  --token-file <path>
                    read the token every request must carry, on every address, loopback included
                    (16 to 200 characters of A-Z a-z 0-9 _ -), from this file; or set SSK_UI_TOKEN.
                    Without either a token is generated; the address printed carries it:
                    http://127.0.0.1:<port>/?token=<t>
  --token <t>       the same on the command line, which every local user can read (ps,
                    /proc/<pid>/cmdline): it works, with a warning; prefer the two above
  --poll-ms <n>     how often the change token is polled while a page is open (default 250)
  --open            open the page in the default browser

${EXIT_CODES_HELP}`;
