import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * OpenClaw's own session-state functions, found in the `dist/` of its npm package (docs/openclaw.md).
 * Its bundler ships them as chunks with hashed names and minified export names; the chunks keep
 * `//#region src/...` markers naming the source files, and the functions keep their real `.name`s.
 * So each function is found by the region of the chunk that defines it and by its name, and the
 * whole set is checked when it loads: a release that moves or renames one fails here, naming what
 * is missing, instead of mapping a wire op to the wrong code.
 */

type Fn = (...args: never[]) => unknown;

/** What the adapter calls. Each name is the function's own name in OpenClaw's source. */
export interface OpenClawApi {
  version: string;
  recordSessionStateEvent: (input: Record<string, unknown>, options?: { now?: number }) => Record<string, unknown> | undefined;
  recordSessionHumanDirectMessage: (params: Record<string, unknown>, options?: { now?: number }) => Record<string, unknown> | undefined;
  getSessionStateVersion: (sessionKey: string, agentId: string) => number;
  listSessionStateEventsSince: (sessionKey: string, agentId: string, after: number, limit?: number) => { events: Record<string, unknown>[]; truncated: boolean; earliestAvailableSequence: number; historyGap: boolean };
  registerSessionStateWatch: (params: { watcherSessionKey: string; targetSessionKey: string; targetAgentId?: string }, options?: { now?: number }) => boolean;
  acknowledgeSessionStateNotices: (watcherSessionKey: string, targets: readonly string[], options?: { now?: number }) => void;
  handleSessionStateSessionReset: (sessionKey: string) => void;
  handleSessionStateSessionDeleted: (sessionKey: string, agentId: string) => void;
  sweepSessionStateWatchNotices: (options?: { now?: number }) => void;
  decodeSessionStateNoticeContextKey: (contextKey: string) => string | undefined;
  /** The hourly prune's body: `pruneSessionStateEventsInDatabase(db, now)` inside `runOpenClawStateWriteTransaction`. */
  pruneSessionStateEventsInDatabase: (db: unknown, now: number) => void;
  runOpenClawStateWriteTransaction: (work: (scope: { db: unknown }) => unknown) => unknown;
  peekSystemEventEntries: (sessionKey: string) => { id: string; text: string; ts: number; contextKey: string | null }[];
  consumeSelectedSystemEventEntries: (sessionKey: string, entries: readonly { id: string }[]) => { id: string; text: string; contextKey: string | null }[];
  resetSystemEventsForTest: () => void;
  replaceSessionEntrySync: (scope: { sessionKey: string }, entry: Record<string, unknown>) => void;
  loadSessionEntryReadOnly: (params: { sessionKey: string; clone: boolean }) => unknown;
  isSubagentSessionKey: (sessionKey: string) => boolean;
  resolveAgentIdFromSessionKey: (sessionKey: string) => string;
}

/** A function the adapter needs, where OpenClaw's source defines it. */
const NEEDED: Record<Exclude<keyof OpenClawApi, 'version'>, string> = {
  recordSessionStateEvent: 'src/sessions/session-state-events.ts',
  recordSessionHumanDirectMessage: 'src/sessions/session-state-events.ts',
  getSessionStateVersion: 'src/sessions/session-state-events.ts',
  listSessionStateEventsSince: 'src/sessions/session-state-events.ts',
  registerSessionStateWatch: 'src/sessions/session-state-events.ts',
  acknowledgeSessionStateNotices: 'src/sessions/session-state-events.ts',
  handleSessionStateSessionReset: 'src/sessions/session-state-events.ts',
  handleSessionStateSessionDeleted: 'src/sessions/session-state-events.ts',
  sweepSessionStateWatchNotices: 'src/sessions/session-state-events.ts',
  decodeSessionStateNoticeContextKey: 'src/sessions/session-state-notices.ts',
  pruneSessionStateEventsInDatabase: 'src/sessions/session-state-events.kernel.ts',
  runOpenClawStateWriteTransaction: 'src/state/openclaw-state-db.ts',
  peekSystemEventEntries: 'src/infra/system-events.ts',
  consumeSelectedSystemEventEntries: 'src/infra/system-events.ts',
  resetSystemEventsForTest: 'src/infra/system-events.ts',
  replaceSessionEntrySync: 'src/config/sessions/session-accessor.sqlite-entry.ts',
  loadSessionEntryReadOnly: 'src/config/sessions/session-accessor.sqlite-entry.ts',
  isSubagentSessionKey: 'src/sessions/session-key-utils.ts',
  resolveAgentIdFromSessionKey: 'src/routing/session-key.ts',
};

/**
 * The reply path's drain and acknowledgement (docs/openclaw.md: drainNotices): it is not exported,
 * so the adapter composes it from exported functions, and checks here that the shipped reply path
 * still does exactly those steps.
 */
const REPLY_PATH_REGION = 'src/auto-reply/reply/session-system-events.ts';
const REPLY_PATH_STEPS = ['consumeSelectedSystemEventEntries(', 'decodeSessionStateNoticeContextKey(event.contextKey)', 'acknowledgeSessionStateNotices(params.sessionKey, sessionStateTargets)'];

/** Something the adapter needs is not where it was; the message names it. */
export class OpenClawLayoutError extends Error {
  override readonly name = 'OpenClawLayoutError';
}

/** The text of one region (`//#region <source>` up to the next `//#endregion`). */
function regionText(chunk: string, source: string): string | undefined {
  const start = chunk.indexOf(`//#region ${source}\n`);
  if (start < 0) return undefined;
  const end = chunk.indexOf('//#endregion', start);
  return chunk.slice(start, end < 0 ? undefined : end);
}

/** The relative chunks a chunk imports. */
function importsOf(chunk: string): string[] {
  return [...chunk.matchAll(/^import (?:[^;]*? from )?"\.\/([^"]+\.mjs)";$/gm)].map((m) => m[1]!);
}

/**
 * Loads OpenClaw's session-state functions from `distDir` (the `dist/` of the installed package).
 * Starts from the one chunk whose regions are the signal log and the notices, follows its imports
 * for the rest, and fails naming every function or region it could not find.
 */
export async function loadOpenClawApi(distDir: string, version: string): Promise<OpenClawApi> {
  const files = readdirSync(distDir).filter((f) => f.endsWith('.mjs'));
  const text = new Map<string, string>();
  const read = (f: string) => {
    if (!text.has(f)) text.set(f, readFileSync(join(distDir, f), 'utf8'));
    return text.get(f)!;
  };
  const home = files.filter((f) => {
    const t = read(f);
    return t.includes('//#region src/sessions/session-state-events.ts\n') && t.includes('//#region src/sessions/session-state-notices.ts\n');
  });
  if (home.length !== 1) throw new OpenClawLayoutError(`openclaw ${version}: expected one chunk holding the regions src/sessions/session-state-events.ts and session-state-notices.ts in ${distDir}, found ${home.length}`);
  // The chunk and every chunk it imports, directly or through one more import (the kernel imports the db layer).
  const chunks = new Set<string>([home[0]!]);
  for (let depth = 0; depth < 2; depth++) for (const c of [...chunks]) for (const i of importsOf(read(c))) if (files.includes(i)) chunks.add(i);
  const reply = files.find((f) => read(f).includes(`//#region ${REPLY_PATH_REGION}\n`));
  const found: Record<string, Fn> = {};
  const missing: string[] = [];
  for (const [name, source] of Object.entries(NEEDED)) {
    const holder = [...chunks].find((c) => regionText(read(c), source)?.includes(`function ${name}(`));
    if (holder === undefined) {
      missing.push(`${name} (region ${source})`);
      continue;
    }
    const module = (await import(pathToFileURL(join(distDir, holder)).href)) as Record<string, unknown>;
    const fn = Object.values(module).find((v): v is Fn => typeof v === 'function' && v.name === name);
    if (fn === undefined) missing.push(`${name} (defined in ${holder} but not exported)`);
    else found[name] = fn;
  }
  if (reply === undefined) missing.push(`the reply path (region ${REPLY_PATH_REGION})`);
  else {
    const body = regionText(read(reply), REPLY_PATH_REGION)!;
    for (const step of REPLY_PATH_STEPS) if (!body.includes(step)) missing.push(`the reply path step ${JSON.stringify(step)} (region ${REPLY_PATH_REGION} in ${reply})`);
  }
  if (missing.length > 0) throw new OpenClawLayoutError(`openclaw ${version} does not hold what the adapter maps the wire ops to:\n  ${missing.join('\n  ')}\nThe mapping (docs/openclaw.md) needs updating for this release.`);
  return { version, ...(found as unknown as Omit<OpenClawApi, 'version'>) };
}
