import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContinueInput } from '../../src/core/upstream/index.js';

export const A = 'main';
export const TARGET = 'agent:main:adopted:claude-1';
export const COORD = 'agent:main:coordinator';
export const PARENT = 'agent:main:main';
export const T0 = Date.UTC(2026, 0, 1);

export function tempDir(prefix = 'ssk-upstream-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function fakeClock(start = T0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms), set: (v: number) => void (t = v) };
}

/** Claude Code-shaped transcript lines (the fields the classifier looks at, plus typical noise). */
export const line = {
  human: (text: string, timestamp = '2026-01-01T00:00:30.000Z', uuid = `u-${Math.abs(hashCode(text + timestamp))}`) =>
    JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd: '/w', sessionId: 's1', version: '2.0.0', type: 'user', message: { role: 'user', content: text }, uuid, timestamp }),
  humanBlocks: (texts: string[], timestamp = '2026-01-01T00:00:31.000Z') =>
    JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: texts.map((t) => ({ type: 'text', text: t })) }, uuid: 'ub', timestamp }),
  toolResult: () =>
    JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }, toolUseResult: { stdout: 'ok' }, uuid: 'tr', timestamp: '2026-01-01T00:00:32.000Z' }),
  meta: (text = 'Caveat: local commands') => JSON.stringify({ type: 'user', isMeta: true, message: { role: 'user', content: text }, uuid: 'm', timestamp: '2026-01-01T00:00:33.000Z' }),
  sidechain: (text = 'sub-agent prompt') => JSON.stringify({ type: 'user', isSidechain: true, message: { role: 'user', content: text }, uuid: 's', timestamp: '2026-01-01T00:00:34.000Z' }),
  assistant: (text = 'Sure, working on it.') =>
    JSON.stringify({ type: 'assistant', isSidechain: false, message: { role: 'assistant', content: [{ type: 'text', text }] }, uuid: 'a', timestamp: '2026-01-01T00:00:35.000Z' }),
  summary: () => JSON.stringify({ type: 'summary', summary: 'Fixing the build', leafUuid: 'x' }),
};

function hashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

export function writeLines(path: string, lines: string[]): void {
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
}

export function appendLines(path: string, lines: string[]): void {
  appendFileSync(path, lines.map((l) => `${l}\n`).join(''));
}

export function continueInput(filePath: string, over: Partial<ContinueInput> = {}): ContinueInput {
  return { sessionKey: TARGET, agentId: A, catalogId: 'claude', hostId: 'gateway:local', threadId: 'thread-1', upstreamKind: 'claude-jsonl', ref: { filePath }, ...over };
}
