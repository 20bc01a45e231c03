'use strict';
/**
 * Preloaded (`NODE_OPTIONS=--require <this file>`) into an agent CLI written for Node and into every
 * Node process it starts (its hooks, its MCP servers): a connection or a DNS lookup for anything
 * but loopback or a local socket fails as a refused one would, and is appended to $SSK_NET_LOG, so a
 * test can assert that its run reached no network instead of trusting that it did not.
 */
const { appendFileSync } = require('node:fs');
const dns = require('node:dns');
const net = require('node:net');
const { syncBuiltinESMExports } = require('node:module');

const log = process.env.SSK_NET_LOG;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '::ffff:127.0.0.1']);
const local = (host) => host === undefined || host === null || host === '' || LOOPBACK.has(String(host).toLowerCase()) || /^127\./.test(String(host));
const note = (what) => {
  if (log) appendFileSync(log, `${JSON.stringify({ pid: process.pid, argv: process.argv.slice(1, 3), what })}\n`);
};
const refused = (what) => Object.assign(new Error(`loopback-only: ${what} refused (the test runs offline)`), { code: 'ECONNREFUSED' });

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = first !== null && typeof first === 'object' ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path === undefined && !local(options.host)) {
    note(`connect ${options.host}:${options.port}`);
    process.nextTick(() => this.destroy(refused(`connect to ${options.host}`)));
    return this;
  }
  return connect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  if (!local(hostname)) {
    note(`lookup ${hostname}`);
    process.nextTick(() => cb(Object.assign(refused(`lookup of ${hostname}`), { code: 'ENOTFOUND' })));
    return {};
  }
  return lookup.call(this, hostname, options, callback);
};
const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function guardedLookupPromise(hostname, options) {
  if (!local(hostname)) {
    note(`lookup ${hostname}`);
    return Promise.reject(Object.assign(refused(`lookup of ${hostname}`), { code: 'ENOTFOUND' }));
  }
  return lookupPromise.call(this, hostname, options);
};
// ESM's named imports of the built-ins (`import { lookup } from 'node:dns'`) see the guarded ones too.
syncBuiltinESMExports();
