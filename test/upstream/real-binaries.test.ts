import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { claudeDialect, classifyDialectLine, codexDialect, type TranscriptDialect } from '../../src/core/upstream/jsonl.js';
import { createClaudeJsonlSource, createCodexRolloutSource, createMemoryLinkStore, createUpstreamMonitor } from '../../src/upstream/index.js';
import { binaryOrSkip, findClaude, findCodex } from '../agents/binaries.js';
import { recordClaudeTranscript, recordCodexRollout, recordShape, type Recording } from '../agents/record-transcripts.js';
import { A, COORD, TARGET, continueInput, fakeClock, tempDir } from './helpers.js';

/**
 * U11: the upstream monitor against transcripts the real binaries wrote (test/upstream/fixtures/real,
 * recorded by scripts/record-real-transcripts.ts with the pinned binaries, offline), not against
 * shapes written here. The count of human turns must be exactly the prompts the script typed.
 */
const FIXTURES = join(import.meta.dirname, 'fixtures', 'real');
const fixtures = [
  { name: 'codex-app-server', dialect: codexDialect, kind: 'codex-rollout', source: () => createCodexRolloutSource() },
  { name: 'claude-code-print', dialect: claudeDialect, kind: 'claude-jsonl', source: () => createClaudeJsonlSource() },
].map((f) => ({ ...f, text: readFileSync(join(FIXTURES, `${f.name}.jsonl`), 'utf8'), meta: JSON.parse(readFileSync(join(FIXTURES, `${f.name}.json`), 'utf8')) as { typedPrompts: number; binary: string } }));
// The sub-agent the Codex script spawned: its prompt is the parent model's, so it counts none (U10),
// also when linked while its file was still empty (U12).
const codexMeta = fixtures[0]!.meta;
fixtures.push({ ...fixtures[0]!, name: 'codex-app-server-subagent', text: readFileSync(join(FIXTURES, 'codex-app-server-subagent.jsonl'), 'utf8'), meta: { ...codexMeta, typedPrompts: 0 } });

const lines = (text: string) => text.split('\n').filter((l) => l.length > 0);
function humanTexts(text: string, dialect: TranscriptDialect): string[] {
  const all = lines(text);
  if (dialect.machineDriven?.(JSON.parse(all[0]!)) !== undefined) return [];
  return all.map((l) => classifyDialectLine(l, dialect, {}).result).flatMap((r) => (r.human ? [r.text] : []));
}

const dir = tempDir('ssk-real-binaries-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('U11 transcripts written by the real binaries', () => {
  it.each(fixtures)('U11 $name ($meta.binary): upstream scan counts exactly the typed prompts', ({ text, dialect, meta }) => {
    expect(humanTexts(text, dialect)).toHaveLength(meta.typedPrompts);
  });

  it.each(fixtures)('U11 $name: the live monitor, linked while the file grows, records exactly the typed prompts as human turns', async ({ name, text, kind, source, meta }) => {
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const monitor = createUpstreamMonitor({ store, links: createMemoryLinkStore(), now: clock.now, logger: memoryLogger(), sources: [source()] });
    const path = join(dir, `${name}.jsonl`);
    const all = lines(text);
    // Linked when the file is still empty (U12), as a thread adopted the moment it is created.
    writeFileSync(path, '');
    expect(await monitor.continueSession(continueInput(path, { upstreamKind: kind }))).toMatchObject({ linked: true });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    // The rest arrives in pieces, a tick after each, the way the binary writes it.
    const rest = all;
    for (let i = 0; i < rest.length; i += 5) {
      appendFileSync(path, rest.slice(i, i + 5).map((l) => `${l}\n`).join(''));
      clock.advance(60_000);
      await monitor.tick();
    }
    const turns = store
      .changesSince({ sessionKey: TARGET, agentId: A, since: 0 })
      .stateChanges.events.filter((e) => e.kind === 'human_direct_message')
      .reduce((n, e) => n + Number((e.payload as { turns?: number } | undefined)?.turns ?? 1), 0);
    expect(turns).toBe(meta.typedPrompts);
  });
});

const codex = binaryOrSkip(findCodex(), 'U11 drift check (Codex)');
const claude = binaryOrSkip(findClaude(), 'U11 drift check (Claude Code)');

describe('U11 drift: the pinned binaries, run again, write nothing the classifier has not seen', () => {
  const check = (fresh: Recording, fixture: (typeof fixtures)[number]) => {
    const known = new Set([...lines(fixture.text), ...(fixture.name.startsWith('codex') ? lines(fixtures[2]!.text) : [])].map(recordShape));
    const unknown = [...new Set([...lines(fresh.text), ...lines(fresh.subagentText ?? '')].map(recordShape))].filter((s) => !known.has(s));
    // A new shape means: re-record (scripts/record-real-transcripts.ts), classify it, review the diff.
    expect(unknown, `record shapes ${fresh.binaryVersion} writes that the fixture of ${fixture.meta.binary} lacks`).toEqual([]);
    expect(fresh.binaryVersion).toBe(fixture.meta.binary);
    expect(humanTexts(fresh.text, fixture.dialect)).toHaveLength(fresh.typedPrompts);
  };
  it.skipIf(codex === undefined)('U11 Codex app-server rollout', async () => check(await recordCodexRollout(codex!), fixtures[0]!), 300_000);
  it.skipIf(claude === undefined)('U11 Claude Code print-mode transcript', async () => check(await recordClaudeTranscript(claude!), fixtures[1]!), 300_000);
});
