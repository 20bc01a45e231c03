#!/usr/bin/env node
// `node mutation/survivors.mjs <part> [--with-source]`: the mutants of the part's last report
// (mutation/reports/<part>.json) that neither a test killed nor a timeout stopped, one per line as
// file:line mutator `replacement` (status), in file and line order: the list that
// mutation/survivors/<part>.md must account for (a new test, or a reason it is equivalent).
import { partFromArgs, readReport, reportPath, selectMutants } from './report.mjs';

const { name, rest: flags } = partFromArgs('node mutation/survivors.mjs <part> [--with-source]');
const withSource = flags.includes('--with-source');
const left = selectMutants(readReport(name), (m) => m.status === 'Survived' || m.status === 'NoCoverage');
for (const m of left) {
  const line = m.location.start.line;
  const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80);
  console.log(`${m.file}:${line} ${m.mutatorName} \`${replacement}\`${m.static ? ' static' : ''}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}`);
  if (withSource) console.log(`    ${m.source.split('\n')[line - 1]?.trim().slice(0, 140)}`);
}
console.error(`${left.length} mutant(s) left in ${reportPath(name)}`);
