// What the mutation scripts share: the part named on the command line, its last Stryker report
// (mutation/reports/<part>.json), and the mutants of that report in one order (file, line, column).
import { readFileSync } from 'node:fs';
import { PARTS } from './parts.mjs';

/** The part named first on the command line and the arguments after it; exits 2 with `usage` otherwise. */
export function partFromArgs(usage) {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || !(name in PARTS)) {
    console.error(`usage: ${usage}; parts: ${Object.keys(PARTS).join(', ')}`);
    process.exit(2);
  }
  return { name, rest };
}

/** The part's last report, parsed; exits 1 with a clear message when there is none to read. */
export function readReport(name) {
  const path = reportPath(name);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    console.error(`mutation: no readable report at ${path} (run \`npm run mutation -- ${name}\` first): ${error.message}`);
    process.exit(1);
  }
}

export function reportPath(name) {
  return `mutation/reports/${name}.json`;
}

/** The report's mutants that `keep` selects, each with its `file` and the file's `source`, in file, line and column order. */
export function selectMutants(report, keep) {
  const out = [];
  for (const [file, entry] of Object.entries(report.files)) {
    for (const m of entry.mutants) if (keep(m)) out.push({ ...m, file, source: entry.source });
  }
  return out.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.location.start.line - b.location.start.line ||
      a.location.start.column - b.location.start.column,
  );
}
