import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSessionStateMcpServer, type SessionStateMcpOptions } from './server.js';

/**
 * Serves the MCP server on this process's stdin/stdout until the client goes away (stdin ends or
 * the transport closes) or a signal asks us to stop. stdout carries protocol messages only: every
 * log goes to stderr.
 */
export async function serveStdio(options: SessionStateMcpOptions): Promise<void> {
  const server = createSessionStateMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  const stop = () => void server.close().catch(() => undefined);
  // The SDK transport does not watch for end of input: a client that exits closes our stdin.
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await server.connect(transport);
    await closed;
  } finally {
    process.stdin.off('end', stop);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

export { createSessionStateMcpServer, type SessionStateMcpOptions } from './server.js';
export { NOTICES_URI_PREFIX, NOTICES_URI_TEMPLATE, noticesUri, watcherOfUri } from './uri.js';
