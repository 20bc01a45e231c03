import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { MaybePromise } from '../../spec/index.js';
import type { SessionsListRow } from '../../spec/schemas/tools.js';
import { isValidationError } from '../core/index.js';
import type { NoticeFeed, PendingSource } from '../feed/index.js';
import { consoleLogger, type Logger, messageOf } from '../shared/logger.js';
import { StoreUnavailableError, UnknownToolError, createSessionTools, isForbiddenError, noticesText, type SessionToolsOptions, type ToolStore, type Visibility } from '../tools/index.js';
import { NOTICES_URI_TEMPLATE, noticesUri, watcherOfUri } from './uri.js';

/**
 * The MCP server (PROTOCOL.md T8) on the official SDK's low-level Server: the session tools with
 * their JSON Schemas (the TypeBox schemas are JSON Schema already, so no zod copy can drift), and
 * each watcher's pending notices as a resource whose subscribers hear of a new notice from the
 * change feed. Transport-agnostic; `session-state-kit mcp` connects it to stdio.
 */
export interface SessionStateMcpOptions {
  store: ToolStore;
  /** Drives notifications/resources/updated (R60-R63); without it, subscriptions are accepted but never fire. */
  feed?: Pick<NoticeFeed, 'subscribe'>;
  /**
   * Lists resources for watchers with pending notices; optional. With `pendingWatchersPage` (the
   * stores') a page reads only its own watchers (T15); else every pending pair is listed per page.
   */
  pending?: Pick<PendingSource, 'listPending' | 'pendingWatchersPage'>;
  /** T2 */
  defaultAgentId?: string;
  /** Rows for sessions_list (T4), read whole for every page; without it (or listSessionsPage) the tool is not offered. */
  listSessions?: () => MaybePromise<SessionsListRow[]>;
  /** T15: a keyed page read for sessions_list (the stores' `sessionsPage`); preferred over listSessions. */
  listSessionsPage?: SessionToolsOptions['listSessionsPage'];
  logger?: Logger;
  version?: string;
  /**
   * T10, T19: the session this server acts for (agent-scoped). Bound, the tools and the notices
   * resources act only on its own notices and targets outside `visibility` are refused. Left out,
   * the server is unbound: any client can read and acknowledge any session's notices by naming it.
   */
  caller?: string;
  /** T10: self, tree (default), agent or all; only with a caller. */
  visibility?: Visibility;
  /** T14: the count of storage failures the store has logged (see createSessionTools). */
  storeFailures?: () => number;
}

/** T15: resources/list returns at most this many watchers per page. */
export const RESOURCES_PAGE = 1000;

function pageCursor(watcher: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(watcher)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function afterCursor(cursor: string): string {
  try {
    if (!/^[A-Za-z0-9_-]{1,4096}$/.test(cursor)) throw new Error('shape');
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new McpError(ErrorCode.InvalidParams, 'cursor: not a cursor resources/list returned (pass nextCursor as it came)');
  }
}

/**
 * T8, T15: one page of resources/list: the watchers with pending notices in key order after the
 * cursor, at most RESOURCES_PAGE, with nextCursor when more follow. With `pendingWatchersPage` (the
 * stores') it reads only that page's watchers, and one more that says whether another follows;
 * a source with only `listPending` is read whole for every page.
 */
export async function noticeResourcesPage(
  pending: Pick<PendingSource, 'listPending' | 'pendingWatchersPage'> | undefined,
  cursor: string | undefined,
): Promise<{ resources: { uri: string; name: string; mimeType: string }[]; nextCursor?: string }> {
  if (!pending || (typeof pending.pendingWatchersPage !== 'function' && typeof pending.listPending !== 'function')) return { resources: [] };
  const after = cursor === undefined ? undefined : afterCursor(cursor);
  const watchers =
    typeof pending.pendingWatchersPage === 'function'
      ? (await pending.pendingWatchersPage(after === undefined ? { limit: RESOURCES_PAGE + 1 } : { after, limit: RESOURCES_PAGE + 1 })).filter((w) => typeof w === 'string')
      : [...new Set((await pending.listPending!()).map((p) => p.watcherSessionKey))].filter((w) => after === undefined || w > after).sort();
  const page = watchers.slice(0, RESOURCES_PAGE);
  const resources = page.map((w) => ({ uri: noticesUri(w), name: `notices for ${w}`, mimeType: 'text/plain' }));
  return watchers.length > RESOURCES_PAGE ? { resources, nextCursor: pageCursor(page[page.length - 1]!) } : { resources };
}

const INSTRUCTIONS = `Session-state tools: a shared log of who changed which agent session. When a notice says "Session "<key>" changed (other actor)", call session_status with that sessionKey and changesSince before acting on what you knew of it. Watch a session you coordinate with session_watch (your own session key is the watcher).`;

export function createSessionStateMcpServer(options: SessionStateMcpOptions): Server {
  const logger = options.logger ?? consoleLogger;
  const tools = createSessionTools({
    store: options.store,
    ...(options.defaultAgentId !== undefined ? { defaultAgentId: options.defaultAgentId } : {}),
    ...(options.listSessions !== undefined ? { listSessions: options.listSessions } : {}),
    ...(options.listSessionsPage !== undefined ? { listSessionsPage: options.listSessionsPage } : {}),
    ...(options.caller !== undefined ? { caller: options.caller } : {}),
    ...(options.visibility !== undefined ? { visibility: options.visibility } : {}),
    ...(options.storeFailures !== undefined ? { storeFailures: options.storeFailures } : {}),
    logger,
  });
  const caller = tools.caller;
  const instructions =
    caller === undefined
      ? INSTRUCTIONS
      : `${INSTRUCTIONS} This server is bound to your session "${caller.sessionKey}": pass it as watcherSessionKey; you may look at sessions within visibility "${caller.visibility}".`;
  const server = new Server(
    { name: 'session-state-kit', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.definitions.map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema as { type: 'object' } })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    try {
      const out = await tools.call(name, args);
      return { content: [{ type: 'text', text: out.text }], structuredContent: out.result as Record<string, unknown> };
    } catch (error) {
      if (error instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
      if (isForbiddenError(error)) {
        // T11: the model reads why, and which scope it is in.
        return {
          isError: true,
          content: [{ type: 'text', text: `Forbidden: ${error.message}` }],
          structuredContent: { error: { name: error.name, field: error.field, code: error.code, visibility: error.visibility } },
        };
      }
      if (error instanceof StoreUnavailableError) {
        // T14: an error, so neither the model nor the client takes the degraded answer for the state.
        return { isError: true, content: [{ type: 'text', text: error.text }], structuredContent: { error: { name: error.name, code: error.code } } };
      }
      if (isValidationError(error)) {
        // T8: a tool error the model can read and correct, naming the field.
        return {
          isError: true,
          content: [{ type: 'text', text: `Invalid arguments: ${error.message}` }],
          structuredContent: { error: { name: error.name, field: error.field, code: error.code } },
        };
      }
      logger.error('tool call failed', { tool: name, error: messageOf(error) });
      return { isError: true, content: [{ type: 'text', text: `${name} failed: ${messageOf(error)}` }] };
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: NOTICES_URI_TEMPLATE,
        name: 'notices',
        title: 'Pending session-state notices',
        description: "A watcher's pending stale-state notices, one line each (reading does not take them; session_notices does).",
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    // T13: bound, the one resource a caller may read is its own.
    if (caller !== undefined) return { resources: [{ uri: noticesUri(caller.sessionKey), name: `notices for ${caller.sessionKey}`, mimeType: 'text/plain' }] };
    return noticeResourcesPage(options.pending, request.params?.cursor);
  });

  const watcherOf = (uri: string): string => {
    const watcher = watcherOfUri(uri);
    if (watcher === undefined) throw new McpError(ErrorCode.InvalidParams, `not a notices resource: ${uri} (expected ${NOTICES_URI_TEMPLATE}, the key percent-encoded)`);
    // T13: another session's notices are not this caller's to read or hear of.
    if (caller !== undefined && watcher !== caller.sessionKey) {
      throw new McpError(ErrorCode.InvalidParams, `forbidden: this server is bound to session "${caller.sessionKey}"; the notices of "${watcher}" are not its own`);
    }
    return watcher;
  };

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    // T8: a read peeks (pendingNotices); only session_notices takes them.
    const notices = await options.store.pendingNotices(watcherOf(uri));
    return { contents: [{ uri, mimeType: 'text/plain', text: noticesText(notices) }] };
  });

  // Keyed by the watcher a URI decodes to, holding every spelling the client subscribed with
  // (`%3A` or `%3a` or a bare `:`): updates go out under the client's own URI, and an unsubscribe
  // in another spelling of the same watcher still ends the subscription.
  const subscribed = new Map<string, Set<string>>();
  let stopFeed: (() => void) | undefined;
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const { uri } = request.params;
    const watcher = watcherOf(uri);
    const uris = subscribed.get(watcher) ?? new Set<string>();
    uris.add(uri);
    subscribed.set(watcher, uris);
    if (!stopFeed && options.feed) {
      stopFeed = options.feed.subscribe((signal) => {
        for (const target of subscribed.get(signal.watcherSessionKey) ?? []) {
          server.sendResourceUpdated({ uri: target }).catch((error: unknown) => logger.warn('resources/updated not sent', { uri: target, error: String(error) }));
        }
      });
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    const watcher = watcherOfUri(request.params.uri);
    if (watcher !== undefined) subscribed.delete(watcher);
    if (subscribed.size === 0 && stopFeed) {
      stopFeed();
      stopFeed = undefined;
    }
    return {};
  });

  const previousOnClose = server.onclose;
  server.onclose = () => {
    stopFeed?.();
    stopFeed = undefined;
    previousOnClose?.();
  };
  return server;
}
