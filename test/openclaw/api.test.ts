import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOpenClawApi, OpenClawLayoutError } from '../../conformance/openclaw/api.js';

/**
 * The OpenClaw adapter finds each function by the region of the chunk that defines it and by its
 * name, and refuses a layout it does not know, naming what is missing (docs/openclaw.md). Checked on
 * a made-up dist/ here; the real package is loaded by the CI step that runs the target.
 */
const root = mkdtempSync(join(tmpdir(), 'ssk-openclaw-api-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fn = (name: string) => `function ${name}() { return ${JSON.stringify(name)}; }\n`;
function dist(name: string, chunks: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(chunks)) writeFileSync(join(dir, file), text);
  return dir;
}
const EVENTS = ['recordSessionStateEvent', 'recordSessionHumanDirectMessage', 'getSessionStateVersion', 'listSessionStateEventsSince', 'registerSessionStateWatch', 'acknowledgeSessionStateNotices', 'handleSessionStateSessionReset', 'handleSessionStateSessionDeleted', 'sweepSessionStateWatchNotices'];
/** A dist/ laid out as OpenClaw 2026.9.6 ships it, minus `drop`, with minified export names. */
function layout(drop: string[] = [], replyPath = true): Record<string, string> {
  const region = (source: string, names: string[]) => `//#region ${source}\n${names.filter((n) => !drop.includes(n)).map(fn).join('')}//#endregion\n`;
  const exports = (names: string[]) => `export { ${names.filter((n) => !drop.includes(n)).map((n, i) => `${n} as x${i}`).join(', ')} };\n`;
  const queue = ['peekSystemEventEntries', 'consumeSelectedSystemEventEntries', 'resetSystemEventsForTest'];
  const kernel = ['pruneSessionStateEventsInDatabase'];
  const db = ['runOpenClawStateWriteTransaction'];
  const accessor = ['replaceSessionEntrySync', 'loadSessionEntryReadOnly'];
  const keys = ['isSubagentSessionKey', 'resolveAgentIdFromSessionKey'];
  return {
    'session-state-events-X1.mjs':
      `import { x0 } from "./system-events-X2.mjs";\nimport { x0 as k } from "./kernel-X3.mjs";\nimport { x0 as a } from "./accessor-X5.mjs";\nimport { x0 as s } from "./session-key-X6.mjs";\n` +
      region('src/sessions/session-state-notices.ts', ['decodeSessionStateNoticeContextKey']) +
      region('src/sessions/session-state-events.ts', EVENTS) +
      exports(['decodeSessionStateNoticeContextKey', ...EVENTS]),
    'system-events-X2.mjs': region('src/infra/system-events.ts', queue) + exports(queue),
    'kernel-X3.mjs': `import { x0 } from "./state-db-X4.mjs";\n${region('src/sessions/session-state-events.kernel.ts', kernel)}${exports(kernel)}`,
    'state-db-X4.mjs': region('src/state/openclaw-state-db.ts', db) + exports(db),
    'accessor-X5.mjs': region('src/config/sessions/session-accessor.sqlite-entry.ts', accessor) + exports(accessor),
    'session-key-X6.mjs': `${region('src/sessions/session-key-utils.ts', ['isSubagentSessionKey'])}${region('src/routing/session-key.ts', ['resolveAgentIdFromSessionKey'])}${exports(keys)}`,
    'get-reply-X7.mjs': replyPath
      ? '//#region src/auto-reply/reply/session-system-events.ts\nconst queued = consumeSelectedSystemEventEntries(queueKey, x);\nconst t = queued.map((event) => decodeSessionStateNoticeContextKey(event.contextKey));\nacknowledgeSessionStateNotices(params.sessionKey, sessionStateTargets);\n//#endregion\n'
      : '//#region src/auto-reply/reply/session-system-events.ts\ndrainAll();\n//#endregion\n',
  };
}

describe('the OpenClaw adapter finds what it maps the wire ops to', () => {
  it('loads every function by region and name, whatever the export names', async () => {
    const api = await loadOpenClawApi(dist('whole', layout()), '9.9.9');
    expect(api.version).toBe('9.9.9');
    expect((api.recordSessionStateEvent as unknown as () => string)()).toBe('recordSessionStateEvent');
    expect((api.peekSystemEventEntries as unknown as () => string)()).toBe('peekSystemEventEntries');
    expect((api.pruneSessionStateEventsInDatabase as unknown as () => string)()).toBe('pruneSessionStateEventsInDatabase');
  });

  it('names every function a release moved or renamed, and a changed reply path, instead of mapping an op to the wrong code', async () => {
    const error = await loadOpenClawApi(dist('moved', layout(['acknowledgeSessionStateNotices', 'peekSystemEventEntries'], false)), '9.9.10').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenClawLayoutError);
    const message = (error as Error).message;
    expect(message).toContain('openclaw 9.9.10 does not hold what the adapter maps the wire ops to');
    expect(message).toContain('acknowledgeSessionStateNotices (region src/sessions/session-state-events.ts)');
    expect(message).toContain('peekSystemEventEntries (region src/infra/system-events.ts)');
    expect(message).toContain('the reply path step "consumeSelectedSystemEventEntries("');
  });

  it('refuses a dist/ without the signal-log chunk', async () => {
    await expect(loadOpenClawApi(dist('empty', { 'other.mjs': 'export {};\n' }), '1.0.0')).rejects.toThrow(/expected one chunk holding the regions src\/sessions\/session-state-events\.ts and session-state-notices\.ts .* found 0/);
  });
});
