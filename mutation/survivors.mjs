#!/usr/bin/env node
// `node mutation/survivors.mjs <part> [--with-source]`: the mutants of the part's last report
// (mutation/reports/<part>.json) that neither a test killed nor a timeout stopped, one per line as
// file:line mutator `replacement` (status), in file and line order: the list that
// mutation/survivors/<part>.md must account for (a new test, or a reason it is equivalent).
import { readFileSync } from 'node:fs';
import { PARTS } from './parts.mjs';

const [name, ...flags] = process.argv.slice(2);
if (!name || !(name in PARTS)) {
  console.error(`usage: node mutation/survivors.mjs <part> [--with-source]; parts: ${Object.keys(PARTS).join(', ')}`);
  process.exit(2);
}
const path = `mutation/reports/${name}.json`;
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.error(`mutation: no readable report at ${path} (run \`npm run mutation -- ${name}\` first): ${error.message}`);
  process.exit(1);
}
const withSource = flags.includes('--with-source');
let count = 0;
for (const [file, entry] of Object.entries(report.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
  const lines = entry.source.split('\n');
  const left = entry.mutants
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
  for (const m of left) {
    count++;
    const line = m.location.start.line;
    const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80);
    console.log(`${file}:${line} ${m.mutatorName} \`${replacement}\`${m.static ? ' static' : ''}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}`);
    if (withSource) console.log(`    ${lines[line - 1]?.trim().slice(0, 140)}`);
  }
}
console.error(`${count} mutant(s) left in ${path}`);
