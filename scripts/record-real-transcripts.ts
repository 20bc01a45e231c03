/**
 * Re-records the upstream fixtures with the pinned agent binaries, offline (U11):
 *   npx tsx scripts/record-real-transcripts.ts
 * Writes test/upstream/fixtures/real/<name>.jsonl and <name>.json (binary version, script, the
 * number of typed prompts). Review the diff: a new record shape is a new line for the classifier.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findClaude, findCodex } from '../test/agents/binaries.js';
import { recordClaudeTranscript, recordCodexRollout, type Recording } from '../test/agents/record-transcripts.js';

const out = join(import.meta.dirname, '..', 'test', 'upstream', 'fixtures', 'real');
mkdirSync(out, { recursive: true });
function save(name: string, r: Recording): void {
  writeFileSync(join(out, `${name}.jsonl`), r.text);
  if (r.subagentText !== undefined) writeFileSync(join(out, `${name}-subagent.jsonl`), r.subagentText);
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify({ package: r.version, binary: r.binaryVersion, typedPrompts: r.typedPrompts, script: r.script }, null, 2)}\n`);
  console.log(`${name}: ${r.text.split('\n').length - 1} records, ${r.typedPrompts} typed prompts, ${r.binaryVersion}`);
}
const codex = findCodex();
const claude = findClaude();
if (!codex.ok || !claude.ok) throw new Error(`${codex.ok ? '' : codex.reason} ${claude.ok ? '' : claude.reason}`);
save('codex-app-server', await recordCodexRollout(codex.binary));
save('claude-code-print', await recordClaudeTranscript(claude.binary));
