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
import { consoleLogger, type Logger } from '../shared/logger.js';
import { UnknownToolError, createSessionTools, noticesText, type ToolStore } from '../tools/index.js';
import { NOTICES_URI_TEMPLATE, noticesUri, watcherOfUri } from './uri.js';

/**
 * The MCP server (PROTOCOL.md T8) on the official SDK's low-level Server: the session tools with
 * their JSON Schemas (the TypeBox schemas are JSON Schema already, so no zod copy can drift), and
 * each watcher's pending notices as a resource whose subscribers hear of a new notice from the
 * change feed. Transport-agnostic; `session-state-kit mcp` connects it to stdio.
 */
export interface SessionStateMcpOptions {
  store: ToolStore;
  /** Drives notifications/resources/updated (D2); without it, subscriptions are accepted but never fire. */
  feed?: Pick<NoticeFeed, 'subscribe'>;
  /** Lists resources for watchers with pending notices; optional. */
  pending?: Required<Pick<PendingSource, 'listPending'>>;
  /** T2 */
  defaultAgentId?: string;
  /** Rows for sessions_list (T4); without it the tool is not offered. */
  listSessions?: () => MaybePromise<SessionsListRow[]>;
  logger?: Logger;
  version?: string;
}

const INSTRUCTIONS = `Session-state tools: a shared log of who changed which agent session. When a notice says "Session "<key>" changed (other actor)", call session_status with that sessionKey and changesSince before acting on what you knew of it. Watch a session you coordinate with session_watch (your own session key is the watcher).`;

export function createSessionStateMcpServer(options: SessionStateMcpOptions): Server {
  const logger = options.logger ?? consoleLogger;
  const tools = createSessionTools({
    store: options.store,
    ...(options.defaultAgentId !== undefined ? { defaultAgentId: options.defaultAgentId } : {}),
    ...(options.listSessions !== undefined ? { listSessions: options.listSessions } : {}),
  });
  const server = new Server(
    { name: 'session-state-kit', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions: INSTRUCTIONS },
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
      if (isValidationError(error)) {
        // T8: a tool error the model can read and correct, naming the field.
        return {
          isError: true,
          content: [{ type: 'text', text: `Invalid arguments: ${error.message}` }],
          structuredContent: { error: { name: error.name, field: error.field, code: error.code } },
        };
      }
      logger.error('tool call failed', { tool: name, error: error instanceof Error ? error.message : String(error) });
      return { isError: true, content: [{ type: 'text', text: `${name} failed: ${error instanceof Error ? error.message : String(error)}` }] };
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

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    if (!options.pending) return { resources: [] };
    const watchers = [...new Set((await options.pending.listPending()).map((p) => p.watcherSessionKey))].sort();
    return { resources: watchers.map((w) => ({ uri: noticesUri(w), name: `notices for ${w}`, mimeType: 'text/plain' })) };
  });

  const watcherOf = (uri: string): string => {
    const watcher = watcherOfUri(uri);
    if (watcher === undefined) throw new McpError(ErrorCode.InvalidParams, `not a notices resource: ${uri} (expected ${NOTICES_URI_TEMPLATE}, the key percent-encoded)`);
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
