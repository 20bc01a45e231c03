import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Messages API, so the Claude Code binary the Agent SDK spawns runs a
 * whole session offline: it answers each streamed request with what `reply` decides from the
 * request body. Only loopback; nothing leaves the machine.
 */
export type FakeBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
export interface FakeRequest {
  body: string;
  messages: { role: string; content: unknown }[];
}
export interface FakeAnthropic {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFakeAnthropic(reply: (request: FakeRequest) => Promise<{ content: FakeBlock[]; stop: 'end_turn' | 'tool_use' }>): Promise<FakeAnthropic> {
  const requests: FakeRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (!req.url?.startsWith('/v1/messages') || req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not served offline' } }));
        return;
      }
      let messages: FakeRequest['messages'] = [];
      try {
        messages = (JSON.parse(body) as { messages?: FakeRequest['messages'] }).messages ?? [];
      } catch {
        // An unreadable body gets the default answer.
      }
      const request = { body, messages };
      requests.push(request);
      void reply(request).then(({ content, stop }) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
        send('message_start', { message: { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: 'claude-offline', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
        content.forEach((block, index) => {
          if (block.type === 'text') {
            send('content_block_start', { index, content_block: { type: 'text', text: '' } });
            send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
          } else {
            send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
            send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
          }
          send('content_block_stop', { index });
        });
        send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
        send('message_stop', {});
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
