import { validateSessionKey } from '../core/index.js';

/**
 * T8: a watcher's pending notices as an MCP resource. The watcher key is percent-encoded (keys hold
 * `:`, `/`, spaces and any Unicode), so one key is one URI and the URI decodes back to it exactly.
 */
export const NOTICES_URI_PREFIX = 'session-state://notices/';
export const NOTICES_URI_TEMPLATE = `${NOTICES_URI_PREFIX}{watcherSessionKey}`;

export function noticesUri(watcherSessionKey: string): string {
  return NOTICES_URI_PREFIX + encodeURIComponent(watcherSessionKey);
}

/** The watcher a notices URI names; undefined for any other URI or a key that breaks R1. */
export function watcherOfUri(uri: string): string | undefined {
  if (!uri.startsWith(NOTICES_URI_PREFIX)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(uri.slice(NOTICES_URI_PREFIX.length));
  } catch {
    return undefined;
  }
  try {
    validateSessionKey(key, 'watcherSessionKey');
  } catch {
    return undefined;
  }
  return key;
}
