import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the OpenAI chat-completions API (`POST …/chat/completions`, streamed or
 * not, and `GET …/models`), so agent CLIs that speak it (GitHub Copilot CLI with a custom
 * provider, Qwen Code with `--auth-type openai`, OpenCode's openai-compatible provider) run
 * offline. Every request is recorded with its parsed body. A turn is answered by `reply`: a text,
 * or a tool call (name and JSON arguments) the CLI then runs and sends back.
 */
export type ChatReply = { text: string } | { toolCall: { name: string; arguments: Record<string, unknown> } };

export interface ChatRequest {
  path: string;
  body: string;
  json: Record<string, unknown> | undefined;
}

export interface FakeChatCompletions {
  /** The base URL ending in /v1 (what the CLIs call a base URL). */
  baseUrl: string;
  requests: ChatRequest[];
  /** The chat-completion requests only (model turns). */
  turns(): ChatRequest[];
  close(): Promise<void>;
}

/** All text a request's messages carry (string content and text parts), in order. */
export function chatTexts(request: ChatRequest): string[] {
  const messages = (request.json?.['messages'] ?? []) as { content?: unknown }[];
  const out: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const part of m.content as { text?: unknown }[]) if (typeof part?.text === 'string') out.push(part.text);
  }
  return out;
}

export async function startFakeChatCompletions(reply: (request: ChatRequest, turn: number) => ChatReply = () => ({ text: 'ok' })): Promise<FakeChatCompletions> {
  const requests: ChatRequest[] = [];
  let turn = 0;
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      let json: Record<string, unknown> | undefined;
      try {
        json = body === '' ? undefined : (JSON.parse(body) as Record<string, unknown>);
      } catch {
        json = undefined;
      }
      const request: ChatRequest = { path, body, json };
      requests.push(request);
      if (req.method === 'GET' && /\/models\/?(\?|$)/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'standin-model', object: 'model', created: 0, owned_by: 'standin' }] }));
        return;
      }
      if (!path.includes('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `${path} is not served offline`, type: 'not_found' } }));
        return;
      }
      const answer = reply(request, turn++);
      const model = typeof json?.['model'] === 'string' ? json['model'] : 'standin-model';
      const id = `chatcmpl-standin-${turn}`;
      // Roughly what a real tokenizer would count: Qwen Code judges a compaction by the prompt
      // tokens the API reported, and a fixed small count makes every compaction "not beneficial".
      const promptTokens = Math.ceil(body.length / 4);
      const usage = { prompt_tokens: promptTokens, completion_tokens: 3, total_tokens: promptTokens + 3 };
      const toolCall = 'toolCall' in answer ? { index: 0, id: `call_${++calls}`, type: 'function', function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) } } : undefined;
      const finish = toolCall ? 'tool_calls' : 'stop';
      if (json?.['stream'] === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
        res.write(chunk({ role: 'assistant', content: '' }, null));
        if (toolCall) res.write(chunk({ tool_calls: [toolCall] }, null));
        else res.write(chunk({ content: (answer as { text: string }).text }, null));
        res.write(chunk({}, finish, { usage }));
        res.end('data: [DONE]\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        const message = toolCall ? { role: 'assistant', content: null, tool_calls: [{ id: toolCall.id, type: 'function', function: toolCall.function }] } : { role: 'assistant', content: (answer as { text: string }).text };
        res.end(JSON.stringify({ id, object: 'chat.completion', created: 0, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    turns: () => requests.filter((r) => r.path.includes('/chat/completions')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
