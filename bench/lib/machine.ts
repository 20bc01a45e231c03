import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';

/** What a result means depends on where it ran: stored with every JSON file. */
export interface MachineNote {
  cpuModel: string;
  cores: number;
  availableParallelism: number;
  memoryGiB: number;
  platform: string;
  node: string;
  v8: string;
  sqlite: string;
  betterSqlite3: string;
  tinybench: string;
  tmpdir: string;
  date: string;
  loadAverage: number[];
}

/** Walks up from the package's entry point: some packages (tinybench) do not export package.json. */
function packageVersion(name: string): string {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    for (;;) {
      const file = join(dir, 'package.json');
      if (existsSync(file)) {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      }
      const up = dirname(dir);
      if (up === dir) return 'unknown';
      dir = up;
    }
  } catch {
    return 'unknown';
  }
}

export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return String(db.prepare('SELECT sqlite_version()').pluck().get());
  } finally {
    db.close();
  }
}

export function machineNote(date: Date): MachineNote {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    sqlite: sqliteVersion(),
    betterSqlite3: packageVersion('better-sqlite3'),
    tinybench: packageVersion('tinybench'),
    tmpdir: os.tmpdir(),
    date: date.toISOString(),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
