/**
 * Generates spec/MUSTS.md: every MUST of spec/PROTOCOL.md, in order, with the cases that can fail
 * it: properties and fixed vectors of the conformance suite, the wire protocol's driver cases, the
 * tools' and upstream monitor's vectors, and the kit's own tests that cite its rule. A MUST of the
 * store contract (R, W) that no suite case judges must say why it cannot be judged over the wire
 * (UNTESTABLE below). `npx tsx spec/musts.ts` writes it; `--check` exits 1 when it differs (a test
 * does the same), so the list cannot go stale.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Contract MUSTs no case over the wire can fail, and why. Each still has the kit's own tests where
 * a test can hold it (listed in the table).
 */
export const UNTESTABLE: Record<string, string> = {
  R9d: 'values another program wrote into a durable store\'s files reach it below the contract; over the wire nothing can write past the implementation (the SQLite and PostgreSQL stores\' own tests write such rows)',
  R35: 'a storage failure while reading cannot be provoked over the wire; the stores\' own tests break their storage to see the degraded answer',
  R9c: 'how a durable store reports a file it cannot open is the storage adapter\'s, below the contract; over the wire the implementation owns its storage (W3 leaves the error name free)',
  R18: 'when a write becomes visible to other processes is a property of the storage, judged across handles (R20) but not separable from it over the wire',
  R60: 'the change feed is a host-side service over a store, outside the wire contract',
  R61: 'the change feed is a host-side service over a store, outside the wire contract',
  R62: 'the change feed is a host-side service over a store, outside the wire contract',
  R63: 'the change feed is a host-side service over a store, outside the wire contract',
  R64: 'delivery through a runtime\'s own queue is the host\'s, outside the wire contract',
  R65: 'delivery through a runtime\'s own queue is the host\'s, outside the wire contract',
  R66: 'delivery through a runtime\'s own queue is the host\'s, outside the wire contract',
  R67: 'wake policy is the host\'s, outside the wire contract',
  R68: 'the feed\'s read of changed pairs is a store-side interface below the contract',
  R69: 'subscriber indexing is the feed\'s, outside the wire contract',
  R70: 'file watching is the SQLite adapter\'s, outside the wire contract',
  R73: 'a wake-up message between processes (NOTIFY) and a feed\'s answer to it are below the wire contract, which has no feed (the feed\'s and the PostgreSQL store\'s own tests hold it)',
  R74: 'news carried in a wake-up message between processes, and a feed\'s use of it, are below the wire contract, which has no feed (the feed\'s and the PostgreSQL store\'s own tests hold it)',
  R75: 'which channels a wake-up message goes to, and which a process listens on, are below the wire contract, which has no feed (the PostgreSQL store\'s and the feed\'s own tests hold it)',
  R76: 'how a listening connection reads its socket is the PostgreSQL adapter\'s, below the wire contract (its own tests hold it)',
  R71: 'the feed\'s timers are the host\'s, outside the wire contract',
  R72: 'the feed\'s timers are the host\'s, outside the wire contract',
  R80: 'the live view is a host tool, outside the wire contract',
  R81: 'the live view is a host tool, outside the wire contract',
  R82: 'the live view is a host tool, outside the wire contract',
  R83: 'the live view is a host tool, outside the wire contract',
  R84: 'the live view is a host tool, outside the wire contract',
  R85: 'the live view is a host tool, outside the wire contract',
  R86: 'the live view is a host tool, outside the wire contract',
  R87: 'the live view is a host tool, outside the wire contract',
  R88: 'the live view is a host tool, outside the wire contract',
  R89: 'the live view is a host tool, outside the wire contract',
  R43: 'that a failed prune still moves lastPruneAt cannot be provoked over the wire (a prune cannot be made to fail there)',
};

interface Must {
  rule: string;
  section: string;
  sentence: string;
}

/** The MUST sentences of PROTOCOL.md, each with the rule bullet it stands in. */
export function musts(protocol: string): Must[] {
  const out: Must[] = [];
  let section = '';
  let rule: string | undefined;
  let text: string[] = [];
  const flush = () => {
    if (rule === undefined) return;
    const body = text.join(' ').replace(/\s+/g, ' ');
    for (const sentence of body.split(/(?<=[.;])\s+(?=[A-Z`(*])/)) if (/\bMUST\b/.test(sentence)) out.push({ rule, section, sentence: sentence.trim() });
    rule = undefined;
    text = [];
  };
  for (const line of protocol.split('\n')) {
    const heading = /^#{2,3} (.+)$/.exec(line);
    const bullet = /^- \*\*([RTUW]\d+[a-z]?)\b/.exec(line);
    if (heading || bullet || (line.trim() !== '' && !line.startsWith('  ') && !line.startsWith('- '))) flush();
    if (heading) section = heading[1]!;
    if (bullet) {
      rule = bullet[1]!;
      text = [line.replace(/^- /, '')];
    } else if (rule !== undefined && (line.startsWith('  ') || line.trim() === '')) text.push(line.trim());
  }
  flush();
  return out;
}

function files(dir: string, test: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') out.push(...files(path, test));
    } else if (test(name)) out.push(path);
  }
  return out;
}

const cites = (rules: readonly string[] | undefined, id: string) => (rules ?? []).some((r) => r === id);

/** Every case that names a rule, by kind. */
async function cases(): Promise<(id: string) => { suite: string[]; tests: string[] }> {
  const { PROPERTIES } = await import('../conformance/properties/index.js');
  const { WIRE_CASES } = await import('../conformance/wire-cases.js');
  const vectors = (dir: string) => files(join(root, dir), (n) => n.endsWith('.json')).map((f) => JSON.parse(readFileSync(f, 'utf8')) as { name?: string; rules?: string[]; rule?: string });
  const conformanceVectors = vectors('conformance/vectors');
  const toolVectors = vectors('conformance/tools/vectors');
  const upstreamVectors = files(join(root, 'conformance/upstream/vectors'), (n) => n.endsWith('.json')).map((f) => ({ file: f.slice(root.length), v: JSON.parse(readFileSync(f, 'utf8')) as { rule?: string; rules?: string[] } }));
  const testFiles = [...files(join(root, 'test'), (n) => n.endsWith('.test.ts')), ...files(join(root, 'conformance'), (n) => n.endsWith('.test.ts'))].map((f) => ({ file: f.slice(root.length), text: readFileSync(f, 'utf8') }));
  return (id: string) => {
    const suite = [
      ...PROPERTIES.filter((p) => cites(p.rules, id)).map((p) => `property ${p.name}`),
      ...conformanceVectors.filter((v) => cites(v.rules, id)).map((v) => `vector ${v.name}`),
      ...WIRE_CASES.filter((c) => cites(c.rules, id)).map((c) => `wire case ${c.name}`),
      ...toolVectors.filter((v) => cites(v.rules, id)).map((v) => `tools vector ${v.name}`),
      ...upstreamVectors.filter(({ v }) => v.rule === id || cites(v.rules, id)).map(({ file }) => `upstream vector ${file.replace(/^.*\//, '')}`),
    ];
    // A test cites a rule in a test name: it('R24 ...'), describe('T45 ...').
    const named = new RegExp(`\\b(?:it|test|describe)(?:\\.[a-zA-Z]+)*(?:\\([^)]*\\))?\\(\\s*['"\`][^'"\`\\n]*(?<![-\\w])${id}\\b(?!-)`);
    const tests = testFiles.filter((t) => named.test(t.text)).map((t) => t.file);
    return { suite, tests };
  };
}

const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…` : s);
const cell = (s: string) => s.replace(/\|/g, '\\|');

export async function renderMusts(): Promise<{ text: string; missing: string[] }> {
  const protocol = readFileSync(join(root, 'spec/PROTOCOL.md'), 'utf8');
  const find = await cases();
  const list = musts(protocol);
  const missing: string[] = [];
  const rows: string[] = [];
  for (const m of list) {
    const { suite, tests } = find(m.rule);
    const contract = /^[RW]/.test(m.rule);
    const why = UNTESTABLE[m.rule];
    if (contract && suite.length === 0 && why === undefined) missing.push(`${m.rule}: ${clip(m.sentence, 100)}`);
    const judged = suite.length > 0 ? suite.slice(0, 6).join(', ') + (suite.length > 6 ? ` and ${suite.length - 6} more` : '') : why !== undefined ? `not over the wire: ${why}` : '';
    const own = tests.length > 0 ? tests.slice(0, 3).join(', ') + (tests.length > 3 ? ` and ${tests.length - 3} more` : '') : '';
    rows.push(`| ${m.rule} | ${cell(clip(m.sentence))} | ${cell(judged)} | ${cell(own)} |`);
  }
  const text = [
    '# Every MUST, and what can fail it',
    '',
    '<!-- Generated by `npx tsx spec/musts.ts` from spec/PROTOCOL.md; do not edit. A test fails when it is stale. -->',
    '',
    `${list.length} MUST sentences of \`spec/PROTOCOL.md\`, in order. *Suite* lists the conformance cases that judge the rule over the wire (properties, fixed vectors, wire driver cases) and the tools\' and upstream monitor\'s vectors; a rule of the store contract (R, W) without one says why it cannot be judged over the wire. *Kit tests* are this implementation\'s own tests that name the rule.`,
    '',
    '| rule | MUST | suite | kit tests |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  return { text, missing };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { text, missing } = await renderMusts();
  const path = join(root, 'spec/MUSTS.md');
  if (missing.length > 0) {
    console.error(`contract MUSTs no suite case judges, and no reason why (add a case, or a reason to UNTESTABLE in spec/musts.ts):\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  if (process.argv.includes('--check')) {
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
      console.error('spec/MUSTS.md is stale: run npx tsx spec/musts.ts');
      process.exit(1);
    }
    console.log('spec/MUSTS.md is up to date');
  } else {
    writeFileSync(path, text);
    console.log(`wrote spec/MUSTS.md (${text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| rule')).length} MUSTs)`);
  }
}
