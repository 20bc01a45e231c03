/** Command line of bench/run.ts. Pure, so test/bench covers it. */

export type Mode = 'full' | 'smoke';

export interface BenchArgs {
  mode: Mode;
  /** Run only groups whose name contains this substring. */
  filter?: string;
  /** Where the JSON goes; undefined means bench/results/<iso-timestamp>.json. */
  json?: string;
  /** Exit 1 when a ratio is under its floor (bench/floors.ts). */
  check: boolean;
  help: boolean;
}

export const USAGE = `usage: tsx bench/run.ts [--smoke] [--filter <substr>] [--json <path>] [--check]

  --smoke            short CI mode (smaller sizes, shorter time per task; under 2 minutes)
  --filter <substr>  run only the groups whose name contains <substr>
                     (append, append-size, changes-since, prune-cap, prune-age, drain, pending, memory,
                     feed, fanout, latency, upstream-scan; postgres or pg-*: the PostgreSQL groups)
  --json <path>      write the JSON results there (default bench/results/<iso-timestamp>.json)
  --check            exit 1 when a result is outside its limit in bench/floors.ts
  --help             this text`;

export function parseArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { mode: 'full', check: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--smoke') args.mode = 'smoke';
    else if (a === '--check') args.check = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--filter') args.filter = value();
    else if (a.startsWith('--filter=')) args.filter = a.slice('--filter='.length);
    else if (a === '--json') args.json = value();
    else if (a.startsWith('--json=')) args.json = a.slice('--json='.length);
    else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  if (args.filter === '') throw new Error('--filter needs a non-empty value');
  return args;
}

/** A group runs when there is no filter or its name contains the filter. */
export function groupSelected(group: string, filter: string | undefined): boolean {
  return filter === undefined || group.includes(filter);
}

/** `2026-12-02T16:30:05.123Z` -> `2026-12-02T16-30-05Z`: sortable and safe on every filesystem. */
export function timestampFileName(date: Date): string {
  return `${date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-')}.json`;
}
