/**
 * `session-state-kit conformance`: runs the conformance suite (conformance/) against an
 * implementation given as a module (--impl), a child process speaking the wire protocol (--exec,
 * any language), or one of ours (--builtin, --broken). Exit 0 when every property holds, 1 when one
 * fails, 2 on a usage error. Progress goes to stderr, the report to stdout.
 */
import { cliInvocation } from './invocation.js';
import {
  formatReport,
  listProperties,
  openClawCommand,
  resolveTarget,
  runConformance,
  runWireCases,
  type ConformanceOptions,
  type ConformanceResult,
  type ResolvedTarget,
  type TargetKind,
  type WireCaseResult,
} from '../../conformance/index.js';
import { messageOf } from '../shared/logger.js';

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
  target?: { kind: TargetKind; value: string };
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
    return openClawCommand(argv, io);
  }
  let parsed: Parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${messageOf(error)}\n\n${CONFORMANCE_USAGE}`);
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
  let target: ResolvedTarget;
  try {
    target = await resolveTarget(parsed.target, {
      ...(parsed.options.handles === undefined ? {} : { handles: parsed.options.handles }),
      ...(parsed.timeoutMs === undefined ? {} : { timeoutMs: parsed.timeoutMs }),
      onStderr: (text) => io.err(text.replace(/^/gm, '[impl] ')),
      note: (line) => io.err(`conformance: ${line}\n`),
    });
  } catch (error) {
    io.err(`conformance: ${messageOf(error)}\n`);
    return 2;
  }
  let result: ConformanceResult;
  try {
    io.err(`conformance: seed ${(parsed.options.seed ??= Math.floor(Math.random() * 0x7fffffff))}${parsed.options.thorough ? ', thorough' : ''}\n`);
    const reason = parsed.options.handles === 1 ? 'asked for with --handles 1' : target.singleHandleReason;
    const single = reason === undefined ? {} : { singleHandleReason: reason };
    result = await runConformance(target.factory, { ...parsed.options, ...single, ...(target.lacks !== undefined ? { lacks: target.lacks } : {}), onProgress: progress(io) });
  } catch (error) {
    io.err(`conformance: ${messageOf(error)}\n`);
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
