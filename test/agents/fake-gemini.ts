import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * and `:generateContent`), so the real Gemini CLI runs offline. Every request is recorded; each
 * model turn is answered with one text part and finishReason STOP.
 */
export interface FakeGemini {
  url: string;
  requests: { path: string; body: string }[];
  close(): Promise<void>;
}

export async function startFakeGemini(reply: (body: string) => string = () => 'ok'): Promise<FakeGemini> {
  const requests: { path: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ path, body });
      const answer = { candidates: [{ content: { role: 'model', parts: [{ text: reply(body) }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 }, modelVersion: 'gemini-standin' };
      if (path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      } else if (path.includes(':generateContent')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      } else if (path.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 5 }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, message: `${path} is not served offline` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
