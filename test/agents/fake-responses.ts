import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the OpenAI Responses API (`POST <base>/responses`, `stream: true`), so
 * the real Codex binary runs whole sessions offline. Each request is handed to a script, which
 * answers with output items; the stand-in streams them as the API does: `response.created`,
 * `response.in_progress`, then per item `response.output_item.added`, its content or argument
 * deltas and their `.done` events, `response.output_item.done`, and last `response.completed`
 * carrying the whole response and its usage. Every event has a `sequence_number`.
 *
 * Event names and fields: OpenAI's Responses streaming reference, and what Codex's own client
 * reads of them (its SSE reader handles `response.created`, `response.output_item.added` /
 * `.done`, `response.output_text.delta`, the reasoning deltas, `response.failed` and
 * `response.completed` with `{id, usage}`; other events are read past). Every request is
 * recorded, whatever its path; only loopback is served.
 */
export type ResponsesOutput =
  | { type: 'message'; text: string }
  | {
      type: 'function_call';
      name: string;
      /** An object is sent as its JSON text (the API sends arguments as a string). */
      arguments: Record<string, unknown> | string;
      /** Tools grouped in a namespace (Codex: `multi_agent_v1`) are called with it. */
      namespace?: string;
      callId?: string;
    }
  | { type: 'reasoning'; summary: string };

export interface ResponsesReply {
  output: ResponsesOutput[];
  /** Token usage reported in `response.completed` (default: small). A large total drives a client's auto-compaction. */
  usage?: { input_tokens: number; output_tokens: number };
}

export interface ResponsesRequest {
  method: string;
  /** The request path, e.g. `/v1/responses`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body. */
  body: string;
  /** The parsed body (undefined when it is not JSON). */
  json: Record<string, unknown> | undefined;
}

export type ResponsesScript = (request: ResponsesRequest, index: number) => ResponsesReply | ResponsesOutput[] | Promise<ResponsesReply | ResponsesOutput[]>;

export interface FakeResponses {
  /** Base URL for a provider (`…/v1`); requests go to `<baseUrl>/responses`. */
  baseUrl: string;
  /** Every request seen, in order (including paths that were refused). */
  requests: ResponsesRequest[];
  /** The model-turn requests only (`POST …/responses`). */
  turns(): ResponsesRequest[];
  close(): Promise<void>;
}

/** Splits a text into a few deltas, as a model streams it. */
function pieces(text: string, size = 24): string[] {
  if (text.length === 0) return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Every string of `input` items of a Responses request, for scripts that route on what the client sent. */
export function inputText(request: ResponsesRequest): string {
  return JSON.stringify(request.json?.['input'] ?? []);
}

/** The `input` items of a Responses request. */
export function inputItems(request: ResponsesRequest): Record<string, unknown>[] {
  const input = request.json?.['input'];
  return Array.isArray(input) ? (input as Record<string, unknown>[]) : [];
}

/** The user-role texts of a request's input, in order. */
export function userTexts(request: ResponsesRequest): string[] {
  return inputItems(request)
    .filter((i) => i['type'] === 'message' && i['role'] === 'user')
    .flatMap((i) => (Array.isArray(i['content']) ? (i['content'] as Record<string, unknown>[]) : []))
    .map((c) => c['text'])
    .filter((t): t is string => typeof t === 'string');
}

/** The outputs of earlier function calls that a request carries (`function_call_output` items). */
export function callOutputs(request: ResponsesRequest): { call_id: string; output: unknown }[] {
  return inputItems(request)
    .filter((i) => i['type'] === 'function_call_output')
    .map((i) => ({ call_id: String(i['call_id']), output: i['output'] }));
}

class Stream {
  private seq = 0;
  constructor(private readonly res: ServerResponse) {}
  send(type: string, data: Record<string, unknown>): void {
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`);
  }
}

function streamReply(res: ServerResponse, index: number, model: string, reply: ResponsesReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const s = new Stream(res);
  const id = `resp_standin_${index}`;
  const created_at = Math.floor(Date.now() / 1000);
  const base = { id, object: 'response', created_at, model, output: [] as unknown[], usage: null as unknown };
  s.send('response.created', { response: { ...base, status: 'in_progress' } });
  s.send('response.in_progress', { response: { ...base, status: 'in_progress' } });
  const done: Record<string, unknown>[] = [];
  reply.output.forEach((out, output_index) => {
    const n = `${index}_${output_index}`;
    if (out.type === 'message') {
      const item_id = `msg_standin_${n}`;
      const final = { id: item_id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: out.text, annotations: [] }] };
      s.send('response.output_item.added', { output_index, item: { ...final, status: 'in_progress', content: [] } });
      s.send('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of pieces(out.text)) s.send('response.output_text.delta', { item_id, output_index, content_index: 0, delta });
      s.send('response.output_text.done', { item_id, output_index, content_index: 0, text: out.text });
      s.send('response.content_part.done', { item_id, output_index, content_index: 0, part: final.content[0] });
      s.send('response.output_item.done', { output_index, item: final });
      done.push(final);
    } else if (out.type === 'function_call') {
      const item_id = `fc_standin_${n}`;
      const args = typeof out.arguments === 'string' ? out.arguments : JSON.stringify(out.arguments);
      const final: Record<string, unknown> = { id: item_id, type: 'function_call', status: 'completed', call_id: out.callId ?? `call_standin_${n}`, name: out.name, arguments: args };
      if (out.namespace !== undefined) final['namespace'] = out.namespace;
      s.send('response.output_item.added', { output_index, item: { ...final, status: 'in_progress', arguments: '' } });
      for (const delta of pieces(args)) s.send('response.function_call_arguments.delta', { item_id, output_index, delta });
      s.send('response.function_call_arguments.done', { item_id, output_index, arguments: args });
      s.send('response.output_item.done', { output_index, item: final });
      done.push(final);
    } else {
      const item_id = `rs_standin_${n}`;
      const final = { id: item_id, type: 'reasoning', summary: [{ type: 'summary_text', text: out.summary }] };
      s.send('response.output_item.added', { output_index, item: { ...final, summary: [] } });
      s.send('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const delta of pieces(out.summary)) s.send('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta });
      s.send('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: out.summary });
      s.send('response.output_item.done', { output_index, item: final });
      done.push(final);
    }
  });
  const input_tokens = reply.usage?.input_tokens ?? 100;
  const output_tokens = reply.usage?.output_tokens ?? 10;
  const usage = { input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input_tokens + output_tokens };
  s.send('response.completed', { response: { ...base, status: 'completed', output: done, usage } });
  res.end();
}

/**
 * Starts the stand-in on 127.0.0.1 (a free port). `script` answers each model turn; a script
 * that throws answers HTTP 500, which the client sees as a failed turn.
 */
export async function startFakeResponses(script: ResponsesScript): Promise<FakeResponses> {
  const requests: ResponsesRequest[] = [];
  let turns = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> | undefined;
      try {
        const v: unknown = JSON.parse(body);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) json = v as Record<string, unknown>;
      } catch {
        // Not JSON: recorded as is.
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const request: ResponsesRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, json };
      requests.push(request);
      if (req.method !== 'POST' || !path.endsWith('/responses')) {
        // Model lists, remote compaction and the like are not served: the client falls back.
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'not_found', message: `${req.method} ${path} is not served offline` } }));
        return;
      }
      const index = ++turns;
      Promise.resolve()
        .then(() => script(request, index))
        .then((answer) => streamReply(res, index, typeof json?.['model'] === 'string' ? json['model'] : 'standin', Array.isArray(answer) ? { output: answer } : answer))
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'server_error', message: String(error) } }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    turns: () => requests.filter((r) => r.method === 'POST' && r.path.endsWith('/responses')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
