import { randomBytes } from 'node:crypto';
import type { Notice } from '../../../spec/index.js';
import { applyHookPlan, HOOK_BUSY_MS, sharedDbProblem, type HookStore } from '../hook-apply.js';
import type { HookPlan } from '../hook-plan.js';
import { OPENCODE_AGENT, opencodeEventMeaning, planOpencodeCompaction, planOpencodePrompt, planOpencodeStart, type OpencodeEvent } from './events.js';
import { messageOf } from '../../shared/logger.js';

/**
 * The kit's OpenCode plugin (PROTOCOL.md T61-T62). OpenCode runs no command hooks: it loads
 * TypeScript or JavaScript plugins into its own process (Bun) from `.opencode/plugins/` and
 * `~/.config/opencode/plugins/`. `init opencode` writes a one-line plugin file there that imports
 * this module from this copy of the kit by absolute path (T50, T63) and calls `sessionStatePlugin`.
 * It plans with the planner the command hooks use and applies the plan with the same code
 * (hook-apply.ts); what differs is the channel: the text goes to the model as a part of the
 * person's own message, and counts as delivered once OpenCode stored that part.
 */

/** The members of OpenCode's SDK client the plugin calls, described structurally (no dependency on OpenCode's packages). */
export interface OpencodeClientLike {
  /** OpenCode's log, where the kit's failures go (T62). */
  app?: {
    /** Writes one line to OpenCode's log. */
    log?: (options: { body: { service: string; level: 'debug' | 'info' | 'warn' | 'error'; message: string } }) => unknown;
  };
  /** OpenCode's sessions, asked whether a session is a sub-agent's (T61). */
  session?: {
    /** One session; its `data.parentID` names the session that spawned it. */
    get?: (options: { path: { id: string } }) => unknown;
  };
}

/** What OpenCode hands a plugin when it loads it, by the members the kit reads. */
export interface OpencodePluginInputLike {
  client?: OpencodeClientLike;
}

/** A part of a message, as OpenCode's `chat.message` output holds them (the kit reads `id` and adds text parts). */
export type OpencodePartLike = { id?: string; type?: string } & Record<string, unknown>;

/** The hooks the kit's plugin returns (a subset of `Hooks` in `@opencode-ai/plugin`). */
export interface OpencodeHooksLike {
  /** T61: every bus event; the kit acts on session starts, compactions and stored parts. */
  event: (input: { event: OpencodeEvent }) => Promise<void>;
  /** T61, T62: the person's new message, before OpenCode stores it: the kit may add a text part. */
  'chat.message': (input: { sessionID: string }, output: { message: { id: string; sessionID?: string }; parts: OpencodePartLike[] }) => Promise<void>;
  /** Called when OpenCode unloads the plugin: the last instance on a database closes the store. */
  dispose: () => Promise<void>;
}

/** A plugin function as OpenCode calls it: `(input, options) => Promise<Hooks>`. */
export type OpencodePluginLike = (input: OpencodePluginInputLike, options?: Record<string, unknown>) => Promise<OpencodeHooksLike>;

export interface SessionStatePluginOptions {
  /** The shared state database (a SQLite file), the one the other runtimes' hooks and the MCP server name. */
  db: string;
  /** Agent id of the session keys (default `opencode`). */
  agentId?: string;
  /** Opens the store (default: the SQLite file `db`, a statement waiting at most HOOK_BUSY_MS for a lock). */
  openStore?: () => HookStore | Promise<HookStore>;
  /** Diagnostics, besides OpenCode's own log (default: none). */
  warn?: (line: string) => void;
  /** T9: the time a prompt's work may take before it stops and hands over nothing (default HOOK_BUDGET_MS). */
  clock?: () => number;
}

/** The OpenCode log's service name for the kit's lines. */
const SERVICE = 'session-state-kit';
/** Ids a process remembers having handled, so two plugin files on one database act once per event and message. */
const HANDLED_CAP = 4096;
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

interface PendingAck {
  sessionId: string;
  watcher?: string;
  shown: Notice[];
  /** T62: the part carries the key line; once stored, the key is no longer owed. */
  introduced: boolean;
}

/**
 * What one process knows per database and agent, shared by every plugin instance of this module
 * that names them (a project and a user plugin file, or one per directory a server hosts).
 */
interface Shared {
  users: number;
  store?: Promise<HookStore>;
  /** Sessions this process registered (start or prompt), so a prompt does not register again (T31). */
  registered: Set<string>;
  /** T62: sessions whose model has not been told the key: started here and not yet prompted, or compacted since. */
  keyOwed: Set<string>;
  /** T61: which sessions are a sub-agent's (spawned by another session) and which are the person's. */
  spawned: Map<string, boolean>;
  /** T61, T33: whether a session's running compaction is automatic, from its compaction part. */
  compactionAuto: Map<string, boolean>;
  /** T62: the kit's parts not yet stored, by part id: what to ack once OpenCode stored them. */
  pendingAcks: Map<string, PendingAck>;
  handled: Set<string>;
  /** One step at a time, in the order OpenCode called: a prompt sees what its session's start recorded. */
  queue: Promise<unknown>;
}

const processState = new Map<string, Shared>();

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_STAMP_MASK = 0xffffffffffffn;

/**
 * T62: a part id as OpenCode makes them (`prt_`, 12 hex digits of time × 4096 + a counter, 14
 * random base-62 characters; it stores parts by id and reads a message's parts in id order),
 * later than every id in `parts`, so the kit's part follows the person's own.
 */
export function nextPartId(parts: readonly unknown[], now: number = Date.now()): string {
  // An id keeps the low 48 bits only, so the parts' ids are compared with the stamp in that space
  // (today's time × 4096 is past 2^48: unmasked, it would exceed every id and follow none of them).
  let stamp = (BigInt(Math.max(0, Math.floor(now))) * 4096n) & ID_STAMP_MASK;
  for (const part of parts) {
    const id = part !== null && typeof part === 'object' ? (part as { id?: unknown }).id : undefined;
    const m = typeof id === 'string' ? /^prt_([0-9a-f]{12})/.exec(id) : null;
    if (m === null) continue;
    // One past the latest part, kept within 48 bits (at the very top it can only equal it).
    const after = BigInt(`0x${m[1]}`) + 1n;
    if (after > stamp) stamp = after > ID_STAMP_MASK ? ID_STAMP_MASK : after;
  }
  const random = [...randomBytes(14)].map((b) => BASE62[b % 62]).join('');
  return `prt_${stamp.toString(16).padStart(12, '0')}${random}`;
}

function firstLineOf(error: unknown): string {
  return messageOf(error).split('\n')[0]!.slice(0, 300);
}

/**
 * T61-T62: the kit's OpenCode plugin for one database. Every hook answers; none throws: a store
 * that cannot open or answer is logged to OpenCode's log and the person's turn goes on without the
 * kit's part (its notices stay pending for the next prompt).
 */
export function sessionStatePlugin(options: SessionStatePluginOptions): OpencodePluginLike {
  const agentId = options.agentId ?? OPENCODE_AGENT;
  const problem = typeof options.db !== 'string' ? 'db must be the path of the shared state database' : sharedDbProblem(options.db) ?? (AGENT_ID.test(agentId) ? undefined : `agentId must be an agent id, got ${JSON.stringify(agentId)}`);
  const clock = options.clock ?? (() => performance.now());
  // Shared process-wide only where the plugin opens the database itself: a store passed in is this factory's.
  const states = options.openStore === undefined ? processState : new Map<string, Shared>();
  return async (input) => {
    const client = input?.client;
    const log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => {
      options.warn?.(message);
      try {
        // Fire and forget: a log that cannot be written must not hold the prompt either. OpenCode
        // 1.18.33 writes the message without the service, so the line names the kit itself.
        void Promise.resolve(client?.app?.log?.({ body: { service: SERVICE, level, message: `${SERVICE}: ${message}` } })).catch(() => undefined);
      } catch {
        // No log: nothing else to do.
      }
    };
    if (problem !== undefined) {
      log('error', `not taking part: ${problem}`);
      return { event: async () => undefined, 'chat.message': async () => undefined, dispose: async () => undefined };
    }
    const id = `${options.db}\u0000${agentId}`;
    let shared = states.get(id);
    if (shared === undefined) {
      shared = { users: 0, registered: new Set(), keyOwed: new Set(), spawned: new Map(), compactionAuto: new Map(), pendingAcks: new Map(), handled: new Set(), queue: Promise.resolve() };
      states.set(id, shared);
    }
    const s = shared;
    s.users++;

    const store = (): Promise<HookStore> => {
      s.store ??= (async () => {
        if (options.openStore !== undefined) return options.openStore();
        const { createSqliteStore } = await import('../../sqlite/index.js');
        return createSqliteStore({ path: options.db, now: Date.now, busyTimeoutMs: HOOK_BUSY_MS, logger: { warn: (m) => log('warn', m), error: (m) => log('error', m) } });
      })();
      // A store that failed to open is tried again at the next step.
      s.store.catch(() => (s.store = undefined));
      return s.store;
    };
    /** True the first time a process-wide id is seen (an event's or a message's). */
    const first = (key: string) => {
      if (s.handled.has(key)) return false;
      s.handled.add(key);
      if (s.handled.size > HANDLED_CAP) s.handled.delete(s.handled.values().next().value!);
      return true;
    };
    /** Runs one step after the steps before it; a failing step is logged, never thrown at OpenCode. */
    const step = (what: string, work: () => Promise<void>): Promise<void> => {
      const run = s.queue.then(work).catch((error: unknown) => log('warn', `${what}: ${firstLineOf(error)}; the turn goes on without the session-state log`));
      s.queue = run;
      return run;
    };
    /** T61: whether a session is a sub-agent's, asked of OpenCode once for a session this process did not see start. */
    const isSpawned = async (sessionId: string): Promise<boolean> => {
      const known = s.spawned.get(sessionId);
      if (known !== undefined) return known;
      let spawned = false;
      try {
        const answer = (await client?.session?.get?.({ path: { id: sessionId } })) as { data?: { parentID?: unknown } } | undefined;
        spawned = typeof answer?.data?.parentID === 'string' && answer.data.parentID.length > 0;
      } catch (error) {
        log('warn', `could not ask OpenCode whether session ${sessionId} is a sub-agent's (${firstLineOf(error)}); taking it for the person's`);
      }
      s.spawned.set(sessionId, spawned);
      return spawned;
    };
    const apply = async (plan: HookPlan | string, carriesContext: boolean, started: number) => {
      if (typeof plan === 'string') {
        log('warn', plan);
        return undefined;
      }
      return applyHookPlan(plan, await store(), { agentId, carriesContext, warn: (line) => log('warn', line), elapsedMs: () => clock() - started, context: { noticesPreamble: true } });
    };

    return {
      event: async ({ event }) => {
        const started = clock();
        const meaning = opencodeEventMeaning(event);
        if (meaning === undefined) return;
        if (typeof event.id === 'string' && !first(`event:${event.id}`)) return;
        await step(event.type, async () => {
          switch (meaning.kind) {
            case 'created': {
              s.spawned.set(meaning.sessionId, meaning.parentId !== undefined);
              // T61: a sub-agent's session is the parent model's work, not a session of the person's.
              if (meaning.parentId !== undefined) return;
              const applied = await apply(planOpencodeStart(meaning.sessionId, agentId), false, started);
              s.registered.add(meaning.sessionId);
              // T62: OpenCode lets a plugin say nothing at a start: the key goes with the first prompt.
              if (applied?.introduced) s.keyOwed.add(meaning.sessionId);
              return;
            }
            case 'part-stored': {
              if (meaning.compaction !== undefined) s.compactionAuto.set(meaning.sessionId, meaning.compaction.auto);
              const ack = s.pendingAcks.get(meaning.partId);
              if (ack === undefined) return;
              s.pendingAcks.delete(meaning.partId);
              if (ack.introduced) s.keyOwed.delete(ack.sessionId);
              // T62: stored in the person's message, which every later request carries: delivered.
              if (ack.watcher !== undefined && ack.shown.length > 0) await (await store()).ackNotices(ack.watcher, ack.shown);
              return;
            }
            case 'compacted': {
              if (s.spawned.get(meaning.sessionId) === true) return;
              const auto = s.compactionAuto.get(meaning.sessionId) ?? true;
              s.compactionAuto.delete(meaning.sessionId);
              await apply(planOpencodeCompaction(meaning.sessionId, auto, agentId), false, started);
              // T51: the summary replaced the messages that held the key line.
              s.keyOwed.add(meaning.sessionId);
              return;
            }
            case 'idle':
              // A part the turn never stored (the prompt failed before): its notices stay pending.
              for (const [partId, ack] of s.pendingAcks) {
                if (ack.sessionId !== meaning.sessionId) continue;
                s.pendingAcks.delete(partId);
                if (ack.shown.length > 0) log('info', `${ack.shown.length} notice(s) for ${ack.watcher ?? meaning.sessionId} were not stored with the message; left pending for the next prompt`);
              }
              return;
          }
        });
      },
      'chat.message': async (hookInput, output) => {
        const started = clock();
        const sessionId = hookInput?.sessionID ?? output?.message?.sessionID;
        const messageId = output?.message?.id;
        if (typeof sessionId !== 'string' || typeof messageId !== 'string' || !Array.isArray(output?.parts)) return log('warn', 'chat.message without a session id, a message id or parts: ignored');
        if (!first(`message:${messageId}`)) return;
        await step('chat.message', async () => {
          // T61: inside a sub-agent the prompt is the parent model's, and the notices are the main session's.
          if (await isSpawned(sessionId)) return;
          const plan = planOpencodePrompt({ sessionId, messageId, registered: s.registered.has(sessionId), keyLineLost: s.keyOwed.has(sessionId) }, agentId);
          const applied = await apply(plan, true, started);
          s.registered.add(sessionId);
          if (applied?.context === undefined) return;
          // T62, T39: a part of the person's own message (role user), never the system text.
          const part = { id: nextPartId(output.parts), sessionID: sessionId, messageID: messageId, type: 'text', text: applied.context.text, metadata: { sessionStateKit: true } };
          output.parts.push(part);
          s.pendingAcks.set(part.id, { sessionId, ...(applied.deliverTo !== undefined ? { watcher: applied.deliverTo } : {}), shown: applied.context.shown, introduced: applied.introduced });
        });
      },
      dispose: async () => {
        await s.queue;
        if (--s.users > 0) return;
        states.delete(id);
        const open = s.store;
        s.store = undefined;
        try {
          await (await open)?.close();
        } catch {
          // Closing cannot lose anything: every step already committed.
        }
      },
    };
  };
}
