import { describe, expect, it } from 'vitest';
import { compareWithClassification, loadClassification, renderReport, type Classification } from '../../conformance/openclaw/report.js';
import { loadReplays, type OpenClawRun, type ProfileRun } from '../../conformance/openclaw/run.js';

/** The OpenClaw report is data checked against a run: any change in what fails, or why, is a reviewed diff (docs/openclaw.md). */
const classification: Classification = {
  openclaw: '1.0.0',
  seed: 7,
  runs: 5,
  findings: [
    { id: 'two-notices', class: 'contradicts-docs', title: 'Two notices', cite: 'docs: "one pending notice"', replay: 'openclaw-spawn-reseed-two-notices' },
    { id: 'kinds', class: 'kit-extension', title: 'Kinds', cite: 'R10' },
  ],
  failures: { fronted: { 'property:R15-frozen-watermark': 'two-notices', 'vector:r16-terminal-runs': 'kinds' }, raw: {} },
  reproduces: { fronted: ['openclaw-spawn-reseed-two-notices'], raw: [] },
};
const profile = (over: Partial<ProfileRun> = {}): ProfileRun => ({
  profile: 'fronted',
  implementation: 'openclaw 1.0.0',
  lacks: [],
  handles: 3,
  properties: { passed: 1, failed: 1, notRun: 0 },
  vectors: { passed: 1, failed: 1, notRun: 0 },
  failures: [
    { id: 'property:R15-frozen-watermark', message: 'R24: 2 notices', script: ' 1. record(...)' },
    { id: 'vector:r16-terminal-runs', message: 'step 7', script: 'conformance/vectors/r16-terminal-runs.json, step 7' },
  ],
  notRun: [],
  replays: [{ name: 'openclaw-spawn-reseed-two-notices', reproduces: true, step: 5 }],
  wireCases: { passed: 7, run: 7 },
  seconds: 10,
  ...over,
});
const run = (p: ProfileRun): OpenClawRun => ({ version: '1.0.0', seed: 7, runs: 5, profiles: [p] });

describe('the OpenClaw classification', () => {
  it('a run that fails exactly as classified matches', () => {
    expect(compareWithClassification(run(profile()), classification)).toEqual([]);
  });

  it('a new failure, a classified failure that passed, and a replay that stopped reproducing are each named', () => {
    const p = profile({
      failures: [{ id: 'property:R15-frozen-watermark', message: '', script: '' }, { id: 'property:R29-restart', message: '', script: '' }],
      replays: [{ name: 'openclaw-spawn-reseed-two-notices', reproduces: false }],
    });
    expect(compareWithClassification(run(p), classification)).toEqual([
      'fronted: property:R29-restart fails and is not classified (add it to conformance/openclaw/findings.json)',
      'fronted: vector:r16-terminal-runs is classified as failing (kinds) but passed',
      'fronted: the replay openclaw-spawn-reseed-two-notices no longer reproduces',
    ]);
    expect(compareWithClassification({ ...run(profile()), seed: 8 }, classification)).toEqual(['the run used seed 8 and 5 cases a property; the classification was made with seed 7 and 5']);
  });

  it('the report lists every failure with its finding and class, and the gap of a finding only its replay reaches', () => {
    const text = renderReport(run(profile({ failures: [{ id: 'vector:r16-terminal-runs', message: 'step 7', script: '' }] })), classification, '2026-12-06', 'v24.22.3');
    expect(text).toContain('Generated on 2026-12-06 against **openclaw 1.0.0**');
    expect(text).toMatch(/\| `vector:r16-terminal-runs` \| Kinds \| kit-extension \| step 7 \|/);
    expect(text).toMatch(/\*\*Two notices\*\* \| OpenClaw behaviour that contradicts the documents it ships .* \| fronted \| none \*\*\(gap: only its replay reaches it\)\*\*/);
  });

  it('the committed classification names only findings it defines, and every replay it names exists', () => {
    const c = loadClassification();
    const ids = new Set(c.findings.map((f) => f.id));
    for (const profileFailures of Object.values(c.failures)) for (const [failure, finding] of Object.entries(profileFailures)) expect(ids.has(finding), `${failure} -> ${finding}`).toBe(true);
    const replays = new Set(loadReplays().map((v) => v.name));
    for (const f of c.findings) if (f.replay !== undefined) expect(replays.has(f.replay), f.replay).toBe(true);
    for (const names of Object.values(c.reproduces)) for (const n of names) expect(replays.has(n), n).toBe(true);
  });
});

describe('the replays of OpenClaw findings', () => {
  it('are the reference store\'s answers to their scripts, as committed (npx tsx conformance/openclaw/replays.ts)', async () => {
    const { generateReplays, replaysDir } = await import('../../conformance/openclaw/replays.js');
    const { readFileSync, readdirSync } = await import('node:fs');
    const files = await generateReplays();
    expect(readdirSync(replaysDir()).filter((f) => f.endsWith('.json')).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(`${replaysDir()}${name}`, 'utf8'), name).toBe(text);
  });
});
