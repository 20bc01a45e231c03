import { LIMITS } from '../../spec/index.js';
import { isValidationError, parseAgentScopedKey, validateIdentity, validateSessionKey } from '../core/index.js';
import { parseCommand, parseInteger, shellQuote, wantsHelp } from './args.js';
import { inspectHelpFor, SUBCOMMANDS, type Subcommand } from './help.js';
import { EXIT, NotFound, UsageError, type ExitCode, type Io } from './io.js';
import { openReadOnly, toDatabaseProblem } from './state-db.js';
import { cliInvocation } from './invocation.js';
import type { CursorView, HeadView, InspectReads } from '../shared/read-model.js';

/** A SQLite file's read model, or a PostgreSQL schema's (`--pg <url>`, which also names its schema): the same views. */
type Reader = InspectReads & { schema?: string };
import { formatBytes, formatDuration, formatPairs, formatTable, formatTime, printable } from './table.js';

/**
 * `session-state-kit inspect <db-file> <subcommand>`: read-only views of a SQLite state database
 * for operators and implementers. Never writes: the file is opened read-only (state-db.ts).
 */

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  agent: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  watcher: { type: 'string' },
  target: { type: 'string' },
  now: { type: 'string' },
  'max-rows': { type: 'string' },
  'retention-days': { type: 'string' },
  pg: { type: 'string' },
  schema: { type: 'string' },
} as const;

/** Which options each subcommand takes (the parser knows the union; this rejects the rest). */
const ALLOWED: Record<Subcommand, readonly (keyof typeof OPTIONS)[]> = {
  heads: ['json', 'help'],
  changes: ['json', 'help', 'agent', 'since', 'limit'],
  cursors: ['json', 'help', 'watcher', 'target'],
  notices: ['json', 'help'],
  stats: ['json', 'help', 'now', 'max-rows', 'retention-days'],
};

/** Positional arguments after the subcommand. */
const ARGS: Record<Subcommand, readonly string[]> = {
  heads: [],
  changes: ['sessionKey'],
  cursors: [],
  notices: ['watcher'],
  stats: [],
};

function isSubcommand(s: string | undefined): s is Subcommand {
  return s !== undefined && (SUBCOMMANDS as readonly string[]).includes(s);
}

function parseNow(value: string | undefined): number {
  if (value === undefined) return Date.now();
  if (/^\d+$/.test(value)) return parseInteger(value, '--now');
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new UsageError(`--now must be an ISO-8601 instant or epoch milliseconds, got ${JSON.stringify(value)}`);
  return t;
}

/** Bad keys are usage errors (exit 2) naming the field, before the file is touched. */
function checkKey(validate: () => void): void {
  try {
    validate();
  } catch (error) {
    if (isValidationError(error)) throw new UsageError(error.message);
    throw error;
  }
}

export async function inspectCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  if (wantsHelp(argv)) {
    io.out(inspectHelpFor(argv));
    return EXIT.ok;
  }
  const { values, positionals } = parseCommand(argv, OPTIONS, 'inspect');
  // --pg <url> reads a PostgreSQL store instead of a file: the URL stands where the file would.
  const pgUrl = values.pg;
  if (values.schema !== undefined && pgUrl === undefined) throw new UsageError('--schema needs --pg <url>');
  const [path, subName, ...rest] = pgUrl === undefined ? positionals : [pgUrl, ...positionals];
  if (path === undefined) throw new UsageError('inspect needs a database file and a subcommand', [`see: ${cliInvocation()} inspect --help`]);
  if (subName === undefined) {
    if (isSubcommand(path)) throw new UsageError(`inspect ${path} needs the database file first: inspect <db-file> ${path}`);
    throw new UsageError(`inspect needs a subcommand after the file: one of ${SUBCOMMANDS.join(', ')}`, [`see: ${cliInvocation()} inspect --help`]);
  }
  if (!isSubcommand(subName)) {
    throw new UsageError(`unknown inspect subcommand: ${printable(subName)} (one of ${SUBCOMMANDS.join(', ')})`, [`see: ${cliInvocation()} inspect --help`]);
  }
  const sub = subName;
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && name !== 'pg' && name !== 'schema' && !(ALLOWED[sub] as readonly string[]).includes(name)) {
      throw new UsageError(`--${name} is not an option of "inspect ${sub}"`, [`see: session-state-kit inspect ${sub} --help`]);
    }
  }
  const expected = ARGS[sub];
  if (rest.length !== expected.length) {
    const shape = expected.map((a) => `<${a}>`).join(' ');
    throw new UsageError(
      rest.length < expected.length ? `inspect ${sub} needs ${shape}` : `inspect ${sub} takes ${expected.length === 0 ? 'no arguments' : `only ${shape}`}, got extra: ${rest.map(printable).join(' ')}`,
      [`see: session-state-kit inspect ${sub} --help`],
    );
  }
  const json = values.json === true;
  const emit = (value: unknown) => io.out(JSON.stringify(value, null, 2));

  // Validate every argument before the file is opened: usage errors win over database problems.
  let run: (reader: Reader) => Promise<ExitCode>;
  switch (sub) {
    case 'heads':
      run = async (reader) => {
        const heads = await reader.heads();
        if (json) emit(heads);
        else if (heads.length === 0) io.out('(no sessions)');
        else for (const line of headsTable(heads)) io.out(line);
        return EXIT.ok;
      };
      break;
    case 'changes': {
      const sessionKey = rest[0]!;
      checkKey(() => validateSessionKey(sessionKey));
      const since = values.since === undefined ? 0 : parseInteger(values.since, '--since');
      const limit = values.limit === undefined ? undefined : parseInteger(values.limit, '--limit', 1);
      const agentFromKey = parseAgentScopedKey(sessionKey)?.agentId;
      if (values.agent !== undefined) checkKey(() => validateIdentity(sessionKey, values.agent));
      run = async (reader) => {
        const agentId = values.agent ?? agentFromKey ?? (await soleAgent(reader, sessionKey));
        if (!(await reader.hasHead(sessionKey, agentId))) throw await unknownSession(reader, sessionKey, agentId);
        const response = await reader.changesSince({ sessionKey, agentId, since, ...(limit === undefined ? {} : { limit }) });
        if (json) {
          emit(response);
          return EXIT.ok;
        }
        const c = response.stateChanges;
        io.out(`session ${printable(sessionKey)} (agent ${printable(agentId)}): stateVersion ${response.stateVersion}, changes since ${since}`);
        io.out(
          `historyGap ${c.historyGap}, truncated ${c.truncated}, earliestAvailableSequence ${c.earliestAvailableSequence}` +
            (c.historyGap ? ' (events after the given version were pruned: refresh the whole session, R33)' : ''),
        );
        io.out('');
        if (c.events.length === 0) io.out('(no events)');
        else
          for (const line of formatTable(
            [
              { header: 'SEQ', value: (e: (typeof c.events)[number]) => e.sequence },
              { header: 'KIND', value: (e) => e.kind },
              { header: 'ACTOR', value: (e) => e.actorType },
              { header: 'ACTOR_ID', value: (e) => e.actorId },
              { header: 'OCCURRED_AT', value: (e) => formatTime(e.occurredAt) },
              { header: 'SUMMARY', value: (e) => e.summary },
              { header: 'PAYLOAD', value: (e) => (e.payload === undefined ? undefined : JSON.stringify(e.payload)) },
            ],
            c.events,
          ))
            io.out(line);
        if (c.truncated) {
          const last = c.events[c.events.length - 1]?.sequence ?? since;
          io.out(`(more: session-state-kit inspect ${printable(where(reader))} changes ${printable(shellQuote(sessionKey))} --agent ${agentId} --since ${last})`);
        }
        return EXIT.ok;
      };
      break;
    }
    case 'cursors': {
      const { watcher, target } = values;
      if (watcher !== undefined) checkKey(() => validateSessionKey(watcher, '--watcher'));
      if (target !== undefined) checkKey(() => validateSessionKey(target, '--target'));
      run = async (reader) => {
        for (const key of [watcher, target]) {
          if (key !== undefined && !(await reader.knowsSession(key))) throw await unknownSession(reader, key);
        }
        const cursors = await reader.cursors({ ...(watcher === undefined ? {} : { watcher }), ...(target === undefined ? {} : { target }) });
        if (json) emit(cursors);
        else if (cursors.length === 0) io.out('(no cursors)');
        else for (const line of cursorsTable(cursors)) io.out(line);
        return EXIT.ok;
      };
      break;
    }
    case 'notices': {
      const watcher = rest[0]!;
      checkKey(() => validateSessionKey(watcher, 'watcher'));
      run = async (reader) => {
        if (!(await reader.knowsSession(watcher))) throw await unknownSession(reader, watcher);
        const notices = await reader.pendingNotices(watcher);
        if (json) {
          emit(notices);
          return EXIT.ok;
        }
        if (notices.length === 0) {
          io.out(`(no pending notices for ${printable(watcher)})`);
          return EXIT.ok;
        }
        for (const line of formatTable(
          [
            { header: 'TARGET', value: (x: (typeof notices)[number]) => x.targetSessionKey },
            { header: 'AGENT', value: (x) => x.targetAgentId },
            { header: 'CHANGES_SINCE', value: (x) => x.lastSeenSequence },
            { header: 'WAKE', value: (x) => x.wake },
            { header: 'CONTEXT_KEY', value: (x) => x.contextKey },
          ],
          notices,
        ))
          io.out(line);
        io.out('');
        for (const x of notices) io.out(printable(x.text));
        return EXIT.ok;
      };
      break;
    }
    case 'stats': {
      const now = parseNow(values.now);
      const maxRows = values['max-rows'] === undefined ? LIMITS.maxRows : parseInteger(values['max-rows'], '--max-rows', 1);
      const retentionMs = values['retention-days'] === undefined ? LIMITS.retentionMs : parseInteger(values['retention-days'], '--retention-days', 1) * 86_400_000;
      run = async (reader) => {
        const s = await reader.stats({ now, maxRows, retentionMs });
        if (json) {
          emit(s);
          return EXIT.ok;
        }
        const oldest = s.oldestEvent
          ? `#${s.oldestEvent.sequence} at ${formatTime(s.oldestEvent.occurredAt)}, ${s.oldestEvent.ageMs < 0 ? `${formatDuration(-s.oldestEvent.ageMs)} in the future` : `${formatDuration(s.oldestEvent.ageMs)} old`}`
          : '(no events)';
        const pairs: [string, string | number][] = [
          s.journalMode === 'postgresql'
            ? ['database', `${s.path} (${formatBytes(s.fileBytes)} in tables and indexes)`]
            : ['file', `${s.path} (${formatBytes(s.fileBytes)}, WAL ${formatBytes(s.walBytes)}, journal ${s.journalMode})`],
          ['schema version', `${s.schemaVersion} (this CLI reads up to ${s.supportedSchemaVersion})`],
          ['rows (events)', s.rows],
          ['rows until cap', `${s.rowsUntilCap.toLocaleString('en-US')} of ${s.maxRows.toLocaleString('en-US')} (R41)`],
          ['highest sequence', s.highestSequence],
          ['sessions', s.sessions],
          ['sessions with pruned history', s.sessionsWithPrunedHistory],
          ['cursors', s.cursors],
          ['watchers', s.watchers],
          ['pending pairs', s.pendingPairs],
          ['oldest event', oldest],
          ['newest event', s.newestOccurredAt === null ? '(no events)' : formatTime(s.newestOccurredAt)],
          ['past retention', `${s.eventsPastRetention} events, ${s.cursorsPastRetention} cursors older than ${formatDuration(s.retentionMs)} (removed by the next prune)`],
        ];
        for (const line of formatPairs(pairs)) io.out(line);
        return EXIT.ok;
      };
      break;
    }
  }

  const reader: Reader =
    pgUrl === undefined ? openReadOnly(path) : await (await import('./pg-state-db.js')).openPgReader(pgUrl, values.schema);
  try {
    return await run(reader);
  } catch (error) {
    throw toDatabaseProblem(error, reader.path);
  } finally {
    await reader.close();
  }
}

/** How a follow-up command names the store: the file, or --pg with the URL (password redacted). */
function where(reader: Reader): string {
  return reader.schema === undefined ? shellQuote(reader.path) : `--pg ${shellQuote(reader.path)}${reader.schema === 'public' ? '' : ` --schema ${shellQuote(reader.schema)}`}`;
}

async function soleAgent(reader: Reader, sessionKey: string): Promise<string> {
  const agents = await reader.agentsOf(sessionKey);
  if (agents.length === 1) return agents[0]!;
  if (agents.length === 0) throw await unknownSession(reader, sessionKey);
  throw new UsageError(`session ${printable(sessionKey)} exists under several agents (${agents.join(', ')}); pass --agent <id>`);
}

async function unknownSession(reader: Reader, sessionKey: string, agentId?: string): Promise<NotFound> {
  const others = agentId === undefined ? [] : (await reader.agentsOf(sessionKey)).filter((a) => a !== agentId);
  const hints = others.length > 0 ? [`the key exists under agent ${others.join(', ')}: pass --agent ${others[0]}`] : [];
  hints.push(`list known sessions: session-state-kit inspect ${where(reader)} heads`, `list watchers and targets: session-state-kit inspect ${where(reader)} cursors`);
  const who = agentId === undefined ? printable(sessionKey) : `${printable(sessionKey)} (agent ${printable(agentId)})`;
  return new NotFound(`unknown session ${who} in ${reader.path}`, hints);
}

function headsTable(heads: readonly HeadView[]): string[] {
  return formatTable(
    [
      { header: 'SESSION', value: (h: HeadView) => h.sessionKey },
      { header: 'AGENT', value: (h) => h.agentId },
      { header: 'STATE_VERSION', value: (h) => h.stateVersion },
      { header: 'PRUNED_MAX', value: (h) => h.prunedMaxSequence },
      { header: 'EVENTS', value: (h) => h.retainedEvents },
      { header: 'EARLIEST', value: (h) => h.earliestAvailableSequence },
      { header: 'UPDATED_AT', value: (h) => formatTime(h.updatedAt) },
    ],
    heads,
  );
}

function cursorsTable(cursors: readonly CursorView[]): string[] {
  return formatTable(
    [
      { header: 'WATCHER', value: (c: CursorView) => c.watcherSessionKey },
      { header: 'TARGET', value: (c) => c.targetSessionKey },
      { header: 'AGENT', value: (c) => c.targetAgentId },
      { header: 'LAST_SEEN', value: (c) => c.lastSeenSequence },
      { header: 'NOTIFIED', value: (c) => c.notifiedSequence },
      { header: 'MATERIAL', value: (c) => c.materialSequence },
      { header: 'PENDING', value: (c) => (c.pending ? 'yes' : 'no') },
      { header: 'PROVENANCE', value: (c) => c.provenance },
      { header: 'UPDATED_AT', value: (c) => formatTime(c.updatedAt) },
    ],
    cursors,
  );
}
