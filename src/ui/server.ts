import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isValidationError, validateIdentity, validateSessionKey } from '../core/index.js';
import { createNoticeFeed, type NoticeFeed } from '../feed/index.js';
import { errorDetails, guardedLogger, type Logger, messageOf } from '../shared/logger.js';
import { APP_CSS, APP_JS, pageHtml } from './assets.js';
import { LiveClient } from './live.js';
import { DEFAULT_PAGE, MAX_PAGE, SHOWN, clip, type UiSource } from './source.js';

/**
 * The live view's HTTP server (R80-R89): node:http alone, one page, a JSON API of bounded pages,
 * and one server-sent-event stream. Loopback by default, and a token on every request on every
 * address, loopback included (R87).
 */

/** R88: no inline script or style, nothing from another origin, no framing, no forms. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/**
 * R87: the page and everything it loads live under this path, and so does the token cookie
 * (`Path=`): browsers send a 127.0.0.1 cookie to every port of the host (cookies are not isolated
 * by port), so a cookie on `/` would reach every other local service.
 */
export const APP_PATH = '/ssk-ui/';

/**
 * R87: the cookie's name carries the port, so two views on one host keep apart. A `__Host-` name
 * would pin it to this host more tightly but requires `Secure`, which a browser never sends over
 * plain http, and the view is plain http on loopback.
 */
export function tokenCookieName(port: number): string {
  return `ssk_ui_token_${port}`;
}
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const DEFAULT_LIVE_POLL_MS = 250;
const MAX_ACTIVITY_MINUTES = 24 * 60;
const HEARTBEAT_MS = 15_000;

/** R87: 24 random bytes, 32 characters of TOKEN_PATTERN. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface UiServerOptions {
  source: UiSource;
  /** Default 127.0.0.1 (R87). */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** R87: required on every request; generated (crypto randomness) when absent. */
  token?: string;
  /** How often the change token is polled while a page listens; default 250 ms. */
  pollMs?: number;
  logger?: Logger;
}

export interface UiServer {
  /** The page's address with its token (?token=), as printed for a person to open. */
  readonly url: string;
  /** The page's address without the token. */
  readonly base: string;
  /** R87: the token every request must carry. */
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A request the API refuses: 400 with the field named, or 404. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new HttpError(400, `${name} must be an integer from ${min} to ${max}`, name);
  return n;
}

function keyParam(params: URLSearchParams, name: string, required: true): string;
function keyParam(params: URLSearchParams, name: string, required?: false): string | undefined;
function keyParam(params: URLSearchParams, name: string, required = false): string | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') {
    if (required) throw new HttpError(400, `${name} is required`, name);
    return undefined;
  }
  try {
    validateSessionKey(raw, name);
  } catch (error) {
    if (isValidationError(error)) throw new HttpError(400, error.message, name);
    throw error;
  }
  return raw;
}

function agentParam(params: URLSearchParams, name: string, sessionKey: string): string {
  const raw = params.get(name);
  if (raw === null || raw === '') throw new HttpError(400, `${name} is required`, name);
  try {
    validateIdentity(sessionKey, raw);
  } catch (error) {
    if (isValidationError(error)) throw new HttpError(400, error.message, name);
    throw error;
  }
  return raw;
}

/** Free text for search: bounded, no controls (it is only ever compared, never shown raw). */
function textParam(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > 200 || /[\u0000-\u001f\u007f]/.test(raw)) throw new HttpError(400, `${name} must be at most 200 characters without control characters`, name);
  return raw;
}

/** What a token may hold (R87): nothing a cookie, a header or a URL would need to escape. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

/**
 * The token cookie's value as sent, never decoded: a token needs no escaping (TOKEN_PATTERN), so
 * a value that is not one (bad percent-encoding included) simply does not match (R87: 401).
 */
function cookieToken(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const { source } = options;
  const host = options.host ?? '127.0.0.1';
  // R87: loopback is shared by every local account and container in the network namespace, which
  // may not be allowed to open the file: without a token given, one is made, never none.
  const token = options.token ?? generateToken();
  if (!TOKEN_PATTERN.test(token)) throw new RangeError('a token must be 16 to 200 characters of A-Z, a-z, 0-9, "_" or "-"');
  const loopback = isLoopbackHost(host);
  const pollMs = options.pollMs ?? DEFAULT_LIVE_POLL_MS;
  const logger = guardedLogger(options.logger ?? { warn: () => {}, error: () => {} });
  const clients = new Set<LiveClient>();
  let poller: ReturnType<typeof setInterval> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let feed: NoticeFeed | undefined;
  let stopFeed: (() => void) | undefined;
  let lastToken: number | string | undefined;
  let polling = false;

  /** R86: one frame to every page; a page that is behind is owed a `changed` instead (LiveClient). */
  const broadcast = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const client of clients) client.send(frame);
  };

  /**
   * R86: the feed signals each watcher with news; all signals of one read (one commit or more)
   * become one `notice` frame per page, naming the first watcher and counting the others.
   */
  let noticed: { first: string; more: number } | undefined;
  const onNotice = (watcherSessionKey: string) => {
    if (noticed) return void noticed.more++;
    // A key another program wrote past R1 is clipped like on the page: a frame stays small (R82, R86).
    noticed = { first: clip(watcherSessionKey, SHOWN.key), more: 0 };
    // The feed emits one read's signals in one synchronous loop: the batch is complete after it.
    queueMicrotask(() => {
      const { first, more } = noticed!;
      noticed = undefined;
      broadcast('notice', more > 0 ? { watcherSessionKey: first, more } : { watcherSessionKey: first });
    });
  };

  /** R86: the cheap token, polled only while a page listens; a change is one small event per page. */
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const t = await source.changeToken();
      if (lastToken !== undefined && t !== lastToken) broadcast('changed', {});
      lastToken = t;
    } catch (error) {
      logger.error('ui: reading the change token failed; retrying', errorDetails(error));
    } finally {
      polling = false;
    }
  };

  const startLive = () => {
    void poll();
    poller = setInterval(() => void poll(), pollMs);
    heartbeat = setInterval(() => {
      for (const client of clients) client.keepAlive();
    }, HEARTBEAT_MS);
    // R86: notices come from the change feed, read from durable state (R60-R63).
    feed = createNoticeFeed(source.feedSource(), { pollIntervalMs: pollMs, logger });
    stopFeed = feed.subscribe((signal) => onNotice(signal.watcherSessionKey));
  };
  const stopLive = () => {
    clearInterval(poller);
    clearInterval(heartbeat);
    stopFeed?.();
    feed?.close();
    poller = heartbeat = feed = stopFeed = undefined;
    lastToken = undefined;
  };

  /** Known once the server listens (the cookie's name carries the port). */
  let cookieName = '';
  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const auth = req.headers.authorization;
    const offered = (auth?.startsWith('Bearer ') ? auth.slice(7) : undefined) ?? url.searchParams.get('token') ?? cookieToken(req, cookieName);
    return offered !== undefined && offered !== null && sameSecret(offered, token);
  };

  const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

  const api = async (path: string, p: URLSearchParams): Promise<unknown> => {
    const limit = intParam(p, 'limit', DEFAULT_PAGE, 1, MAX_PAGE);
    switch (path) {
      case '/api/info':
        return { label: source.label, readOnly: true, pageLimit: MAX_PAGE };
      case '/api/sessions': {
        const search = textParam(p, 'search');
        const agent = textParam(p, 'agent');
        const afterKey = keyParam(p, 'afterKey');
        // A watcher-only row (R81) has no agent: its keyset is (key, '').
        const after = afterKey === undefined ? undefined : { sessionKey: afterKey, agentId: p.get('afterAgent') ? agentParam(p, 'afterAgent', afterKey) : '' };
        return source.sessions({ limit, ...(search ? { search } : {}), ...(agent ? { agent } : {}), ...(after ? { after } : {}) });
      }
      case '/api/timeline': {
        const sessionKey = keyParam(p, 'session', true);
        const agentId = agentParam(p, 'agent', sessionKey);
        const before = p.get('before') ? intParam(p, 'before', 0, 1, Number.MAX_SAFE_INTEGER) : undefined;
        const t = await source.timeline({ sessionKey, agentId, limit, ...(before === undefined ? {} : { before }) });
        if (!t.head) throw new HttpError(404, 'no such session', 'session');
        return t;
      }
      case '/api/watches': {
        const session = keyParam(p, 'session');
        const afterTarget = keyParam(p, 'afterTarget');
        const afterWatcher = keyParam(p, 'afterWatcher');
        const afterAgent = p.get('afterAgent');
        const after =
          afterTarget !== undefined && afterWatcher !== undefined && afterAgent
            ? { targetAgentId: agentParam(p, 'afterAgent', afterTarget), targetSessionKey: afterTarget, watcherSessionKey: afterWatcher }
            : undefined;
        return source.watches({ limit, pending: p.get('pending') === '1', ...(session ? { session } : {}), ...(after ? { after } : {}) });
      }
      case '/api/activity':
        return source.activity(intParam(p, 'minutes', 60, 1, MAX_ACTIVITY_MINUTES));
      default:
        throw new HttpError(404, 'no such endpoint');
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // A page on another site can point a browser at 127.0.0.1 under its own name (DNS rebinding):
    // on loopback only our own host names are served, token or not (R87).
    if (loopback) {
      const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
      if (!isLoopbackHost(hostname)) return send(res, 421, 'text/plain; charset=utf-8', 'misdirected request: use the address printed by session-state-kit ui\n');
    }
    if (!authorized(req, url)) return send(res, 401, 'text/plain; charset=utf-8', 'a token is required: open the address printed by session-state-kit ui\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'read-only: only GET\n', { allow: 'GET, HEAD' });
    const atRoot = url.pathname === '/' || url.pathname === APP_PATH.slice(0, -1);
    if (url.searchParams.has('token')) {
      // R87: the token is traded for the cookie once; the address bar and history keep the clean URL.
      url.searchParams.delete('token');
      // Only ever to a path of the view itself, whatever the request's path looked like.
      const location = url.pathname.startsWith(APP_PATH) ? `${url.pathname}${url.search}` : APP_PATH;
      return send(res, 303, 'text/plain; charset=utf-8', '', { location, 'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=${APP_PATH}` });
    }
    if (atRoot) return send(res, 303, 'text/plain; charset=utf-8', '', { location: `${APP_PATH}${url.search}` });
    if (!url.pathname.startsWith(APP_PATH)) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    const path = url.pathname.slice(APP_PATH.length - 1);
    switch (path) {
      case '/':
        return send(res, 200, 'text/html; charset=utf-8', pageHtml());
      case '/app.js':
        return send(res, 200, 'text/javascript; charset=utf-8', APP_JS);
      case '/app.css':
        return send(res, 200, 'text/css; charset=utf-8', APP_CSS);
      case '/favicon.ico':
        res.writeHead(204, SECURITY_HEADERS);
        return void res.end();
      case '/api/live': {
        res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
        res.write('retry: 1000\nevent: hello\ndata: {}\n\n');
        const client = new LiveClient(res);
        clients.add(client);
        if (clients.size === 1) startLive();
        // The response closes when the page goes away (the request itself ended when it was read).
        res.on('close', () => {
          clients.delete(client);
          if (clients.size === 0) stopLive();
        });
        return;
      }
      default:
        if (!path.startsWith('/api/')) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
        try {
          return json(res, 200, await api(path, url.searchParams));
        } catch (error) {
          if (error instanceof HttpError) return json(res, error.status, { error: error.message, ...(error.field ? { field: error.field } : {}) });
          logger.error('ui: a read failed', { path, ...errorDetails(error) });
          return json(res, 500, { error: messageOf(error) });
        }
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('ui: request failed', errorDetails(error));
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  cookieName = tokenCookieName(port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    base: `http://${shownHost}:${port}${APP_PATH}`,
    token,
    port,
    close: async () => {
      stopLive();
      for (const client of clients) client.res.end();
      clients.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
