import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { classifyClaudeLine, classifyCodexEntry, codexMachineDriver, isSelfEcho, normalizeUserText, ownEchoSet } from '../../src/core/upstream/index.js';
import { createClaudeJsonlSource, createCodexRolloutSource, createRemoteHistorySource } from '../../src/upstream/index.js';
import { buildTranscripts } from './transcripts.js';
import { runCursorScript, runEchoCase, runMissScript, runWatchScript } from './properties.js';
import { buildUpstreamVectors, serializeVectors, type UpstreamVectorFiles } from './vectors.js';

const dir = join(import.meta.dirname, 'vectors');
const read = <K extends keyof UpstreamVectorFiles>(name: K): UpstreamVectorFiles[K] => JSON.parse(readFileSync(join(dir, name), 'utf8')) as UpstreamVectorFiles[K];

describe('upstream vectors: no drift', () => {
  it('the files are exactly what the generator builds (run generate-vectors.ts after changing it)', () => {
    const built = serializeVectors(buildUpstreamVectors());
    expect(readdirSync(dir).filter((f) => f.endsWith('.json')).sort()).toEqual(Object.keys(built).sort());
    for (const [name, text] of Object.entries(built)) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(text);
    const transcripts = buildTranscripts().files;
    expect(readdirSync(join(dir, 'transcripts')).map((f) => `transcripts/${f}`).sort()).toEqual(Object.keys(transcripts).sort());
    for (const [name, text] of Object.entries(transcripts)) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(text);
  });
});

describe('upstream vectors: replay against the implementation', () => {
  it('U4 normalize.json', () => {
    for (const c of read('normalize.json').cases) expect(normalizeUserText(c.input), JSON.stringify(c.input)).toBe(c.normal);
  });

  it('U4 echo.json', async () => {
    for (const c of read('echo.json').cases) {
      const got = await runEchoCase(c.own, c.upstream);
      expect({ humanTurns: got.humanTurns, echoTurns: got.echoTurns }, JSON.stringify(c)).toEqual({ humanTurns: c.humanTurns, echoTurns: c.echoTurns });
    }
  });

  it('U6 classify.json', () => {
    for (const c of read('classify.json').cases) {
      const got = classifyClaudeLine(c.line);
      expect(got.human, c.line).toBe(c.human);
      if (got.human) expect(got.text).toBe(c.text);
      else expect(got.reason, c.line).toBe(c.reason);
    }
  });

  it('U10 codex-classify.json: both turn shapes, model input, every injected form, IDE context, machine-driven threads', () => {
    const file = read('codex-classify.json');
    for (const c of file.cases) {
      const got = classifyCodexEntry(c.record);
      expect(got.human, c.name).toBe(c.human);
      if (got.human) expect({ text: got.text, images: got.images }, c.name).toEqual({ text: c.text, images: c.images });
      else expect(got.reason, c.name).toBe(c.reason);
    }
    for (const t of file.threads) expect(codexMachineDriver(t.firstRecord) !== undefined, t.name).toBe(t.machineDriven);
  });

  it('U2 miss-streak.json', async () => {
    for (const c of read('miss-streak.json').cases) {
      const got = await runMissScript(c.steps);
      expect({ upstreamMissing: got.upstreamMissing, linked: got.linked, checks: got.checks, missCount: got.missCount }, c.steps.join(',')).toEqual(c.expect);
    }
  });

  it('U5 R22 watch-gap.json (store isWatched and runtime demand)', async () => {
    for (const c of read('watch-gap.json').cases) {
      for (const via of ['isWatched', 'demand'] as const) expect(await runWatchScript(c.steps, via), `${c.name} (${via})`).toEqual(c.expect);
    }
  });

  it('U6 jsonl-cursor.json (real files through the adapter)', async () => {
    for (const c of read('jsonl-cursor.json').cases) {
      const actions = c.actions.map((a) => ('check' in a ? a : { append: Uint8Array.from(Buffer.from(a.appendHex, 'hex')) }));
      expect(await runCursorScript(actions, c.scanMaxBytes), c.name).toEqual(c.expect);
    }
  });

  it('U6 U4 U10 transcripts.json: Claude Code 2.x, Claude Code 1.x, Codex legacy, paginated and sub-agent fixtures give their hand-counted human turns', async () => {
    const cases = read('transcripts.json').cases;
    expect(cases.map((c) => c.name)).toEqual(['claude-code-2x', 'claude-code-1x', 'codex-cli', 'codex-paginated', 'codex-subagent']);
    const tmp = mkdtempSync(join(tmpdir(), 'ssk-fixtures-'));
    try {
      for (const c of cases) {
        const path = join(tmp, `${c.name}.jsonl`);
        writeFileSync(path, readFileSync(join(dir, c.file)));
        const source = c.dialect === 'codex' ? createCodexRolloutSource() : createClaudeJsonlSource({ followCandidates: 0 });
        const target = { hostId: 'gateway:local', threadId: c.name, ref: { filePath: path } };
        // U10: a machine-driven thread is refused at Continue, so none of its turns is ever read.
        expect(await source.machineDriven?.(target), c.name).toSatisfy((d: unknown) => (c.machineDriven ? typeof d === 'string' : d === undefined));
        if (c.machineDriven) {
          expect(c.humanTurns, c.name).toBe(0);
          continue;
        }
        const o = await source.check({ ...target, marker: { offset: 0, epoch: 0 } });
        if (o.status !== 'found') throw new Error(`${c.name}: ${o.status}`);
        const echo = ownEchoSet(c.own);
        const human = o.turns.filter((t) => !isSelfEcho(t, echo));
        expect(human.map((t) => t.text), c.name).toEqual(c.humanTexts);
        expect(human.length, c.name).toBe(c.humanTurns);
        expect(o.turns.length - human.length, c.name).toBe(c.ownEchoes);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('U7 remote-history.json', async () => {
    for (const c of read('remote-history.json').cases) {
      const source = createRemoteHistorySource({
        fetchHistory: async ({ limit, before }) => {
          const from = before === undefined ? 0 : c.items.findIndex((i) => (i as { uuid?: string }).uuid === before) + 1;
          return c.items.slice(from, from + limit);
        },
        window: c.window,
      });
      const o = await source.check({ hostId: 'node:n', threadId: 't', ref: {}, marker: c.marker });
      expect(o.status, c.name).toBe(c.expect.status);
      if (o.status !== 'found') continue;
      expect(o.turns.map((t) => t.text), c.name).toEqual(c.expect.humanTexts);
      expect(o.nextMarker).toEqual(c.expect.nextMarker);
      expect(o.note !== undefined, c.name).toBe(c.expect.missedOlder);
    }
  });
});
