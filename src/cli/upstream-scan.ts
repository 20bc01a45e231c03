import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { LIMITS } from '../../spec/index.js';
import {
  claudeDialect,
  codexDialect,
  isSelfEcho,
  notHuman,
  longReaderHeld,
  observeJsonlRead,
  ownEchoSet,
  parseJsonlMarker,
  planJsonlRead,
  type ClassifiedLine,
  type JsonlMarker,
  type LongLineEntry,
  type TranscriptDialect,
} from '../core/upstream/index.js';
import { utf8Decode } from '../upstream/jsonl-transcript-source.js';
import { parseCommand } from './args.js';
import { CliError, EXIT, UsageError, type Io } from './io.js';

type Verdict = 'human' | 'own echo' | 'machine' | 'meta' | 'waiting';

interface Row {
  line: number;
  offset: number;
  bytes: number;
  verdict: Verdict;
  reason: string;
  detail?: string;
  text?: string;
  images?: number;
}

/**
 * `--dialect auto`: the first record decides. A Codex envelope (`session_meta`, or any
 * `{type, payload}`), and a Codex rollout from before the envelope (a bare response item
 * `{type: "message", role, content}`, or the leading `{id, timestamp, instructions}` header those
 * files start with) read as Codex; everything else as Claude Code. `how` says what decided.
 */
export function detectDialect(head: string): { dialect: TranscriptDialect; how: string } {
  for (const text of head.split('\n')) {
    if (text.trim() === '') continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(text) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (v['type'] === 'session_meta' || (v['payload'] !== undefined && typeof v['payload'] === 'object')) return { dialect: codexDialect, how: 'Codex envelope' };
    if (v['type'] === 'message' && typeof v['role'] === 'string' && v['message'] === undefined) return { dialect: codexDialect, how: 'pre-envelope Codex response item' };
    if (v['type'] === undefined && typeof v['id'] === 'string' && 'instructions' in v) return { dialect: codexDialect, how: 'pre-envelope Codex session header' };
    return { dialect: claudeDialect, how: 'first record is not a Codex shape' };
  }
  return { dialect: claudeDialect, how: 'no JSON record in the first 64 KiB' };
}

const snippet = (s: string, n = 72) => {
  const one = JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);
  return one;
};

export async function upstreamCommand(argv: readonly string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'scan') throw new UsageError(sub === undefined ? 'upstream needs a subcommand' : `unknown upstream subcommand: ${sub}`, ['subcommands: scan', 'see: session-state-kit upstream --help']);
  const { values, positionals } = parseCommand(rest, { dialect: { type: 'string' }, own: { type: 'string', multiple: true }, json: { type: 'boolean' } }, 'upstream scan');
  if (positionals.length !== 1) throw new UsageError('upstream scan needs exactly one transcript path', ['see: session-state-kit upstream --help']);
  const path = positionals[0]!;
  const dialectName = values.dialect ?? 'auto';
  if (!['auto', 'claude', 'codex'].includes(dialectName)) throw new UsageError(`--dialect must be auto, claude or codex, not ${dialectName}`);

  let handle;
  try {
    // U6: only a regular file is a transcript. stat first, and open without blocking: opening a
    // FIFO for reading waits for a writer forever (a FIFO swapped in after the stat still opens).
    if (!(await stat(path)).isFile()) throw new CliError(EXIT.notFound, `${path} is not a regular file`);
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory, not a transcript file' : (code ?? String(error));
    throw new CliError(EXIT.notFound, `cannot open ${path}: ${why}`, code === 'ENOENT' ? ['a Claude Code transcript is ~/.claude/projects/<project>/<id>.jsonl, a Codex rollout ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl'] : []);
  }
  try {
    const st = await handle.stat({ bigint: true });
    if (!st.isFile()) throw new CliError(EXIT.notFound, `${path} is not a regular file`);
    const facts = { size: Number(st.size), identity: `${st.dev}:${st.ino}` };
    const maxBytes = LIMITS.upstreamScanMaxBytes;
    const read = async (from: number, length: number) => {
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await handle.read(buf, got, length - got, from + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    };
    const detected = dialectName === 'auto' ? detectDialect(utf8Decode(await read(0, Math.min(facts.size, 64 * 1024)))) : undefined;
    let dialect = detected?.dialect ?? (dialectName === 'codex' ? codexDialect : claudeDialect);
    const chosen = detected ? `detected: ${detected.how}; choose with --dialect claude|codex` : 'chosen with --dialect';
    // U10: a thread its first record shows no person drives (a Codex sub-agent or exec session)
    // is never linked by the monitor; its human-shaped lines are shown as machine.
    let first: { record: unknown } | undefined;
    let driver: string | undefined;
    const base = dialect;
    dialect = {
      ...base,
      classify: (entry, options) => {
        if (first === undefined) {
          first = { record: entry };
          driver = base.machineDriven?.(entry);
        }
        const result = base.classify(entry, options);
        return result.human && driver !== undefined ? notHuman('machine-thread', driver) : result;
      },
    };
    const echo = ownEchoSet((values.own ?? []).map((t) => (t === '' ? { text: '', images: 1 } : t)), Number.MAX_SAFE_INTEGER);
    const counts: Record<Verdict, number> = { human: 0, 'own echo': 0, machine: 0, meta: 0, waiting: 0 };
    let lineNo = 0;
    const emit = (row: Row) => {
      counts[row.verdict]++;
      if (values.json) {
        io.out(JSON.stringify(row));
        return;
      }
      const what = row.text !== undefined ? `${snippet(row.text)}${row.images ? ` +${row.images} image(s)` : ''}` : (row.detail ?? '');
      io.out(`${String(row.line).padStart(6)}  ${String(row.offset).padStart(10)}  ${row.verdict.padEnd(8)}  ${row.reason.padEnd(18)}  ${what}`);
    };
    const onLine = (l: ClassifiedLine) => {
      lineNo++;
      const r = l.result;
      const row: Row = { line: lineNo, offset: l.offset, bytes: l.length, verdict: r.human ? (isSelfEcho(r, echo) ? 'own echo' : 'human') : r.verdict, reason: r.reason };
      if (r.human) {
        row.text = r.text;
        if (r.images > 0) row.images = r.images;
      } else if (r.detail !== undefined) row.detail = r.detail;
      emit(row);
    };
    if (!values.json) io.out(`  line      offset  verdict   why                 text / detail   (${dialect.name} transcript, ${chosen}; ${facts.size} bytes)`);

    const cache = new Map<string, LongLineEntry>();
    const longLines = { get: (k: string) => cache.get(k), set: (k: string, v: LongLineEntry) => void cache.set(k, v), delete: (k: string) => void cache.delete(k) };
    let marker: JsonlMarker = { offset: 0, epoch: 0, file: facts.identity };
    for (;;) {
      const plan = planJsonlRead(marker, facts, { maxBytes, longReaderHeld: longReaderHeld(longLines, marker, facts.identity) });
      if (plan.length === 0) break;
      const chunk = await read(plan.from, plan.length);
      const obs = observeJsonlRead(plan, chunk, facts, utf8Decode, marker, { dialect, maxBytes, longLines, onLine });
      if (obs.status !== 'found') break;
      const next = parseJsonlMarker(obs.nextMarker)!;
      const progressed = next.offset !== marker.offset || (next.long?.scanned ?? 0) !== (marker.long?.scanned ?? 0);
      marker = next;
      if (!progressed) break;
    }
    if (marker.offset < facts.size) {
      lineNo++;
      emit({ line: lineNo, offset: marker.offset, bytes: facts.size - marker.offset, verdict: 'waiting', reason: 'incomplete', detail: 'no newline yet: classified once the line is complete' });
    }
    const summary = { dialect: dialect.name, bytes: facts.size, lines: lineNo, humanTurns: counts.human, ownEchoes: counts['own echo'], machine: counts.machine, meta: counts.meta, waiting: counts.waiting };
    if (driver !== undefined) Object.assign(summary, { machineDriven: driver });
    if (values.json) io.out(JSON.stringify({ summary }));
    else if (driver !== undefined) io.out(`\nmachine-driven thread: ${driver}; the monitor does not link it (U10)`);
    else io.out(`\n${summary.lines} line(s): ${summary.humanTurns} human turn(s), ${summary.ownEchoes} own echo(es), ${summary.machine} machine, ${summary.meta} meta, ${summary.waiting} waiting`);
    return EXIT.ok;
  } finally {
    await handle.close();
  }
}
