import { createHash } from 'node:crypto';
import { parse as parseToml, patch as patchToml, stringify as stringifyToml } from '@decimalturn/toml-patch';

/**
 * The edits `init` makes to the files Claude Code and Codex read (PROTOCOL.md T45-T47), as pure
 * text-to-text functions: a file's text in, its new text out, so that a run can be shown as a diff
 * before anything is written, and a property test can round-trip generated files. JSON files keep
 * their key order and indentation; TOML files keep comments and layout (toml-patch edits the
 * document in place rather than printing it anew).
 */

export type AgentCli = 'claude-code' | 'codex' | 'gemini';

/** T45: the hook events `init` registers, per CLI (what each runtime's hook acts on, T9, T40). */
export const INIT_HOOK_EVENTS: Record<AgentCli, readonly string[]> = {
  'claude-code': ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'],
  // Codex 0.171.0's SessionEnd carries no clear (T42): nothing to record, so no handler to run.
  codex: ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact'],
  gemini: ['SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd'],
};

/** The name `init` gives the MCP server entry in both CLIs' files. */
export const MCP_SERVER_NAME = 'session-state-kit';

/** T45: a hook runs at most this long (seconds); a stuck store must not hold the person's prompt for Codex's default 600 s. */
export const HOOK_TIMEOUT_SECONDS = 30;
/** The same bound in each CLI's unit: Claude Code and Codex read seconds, Gemini CLI milliseconds. */
export function hookTimeout(cli: AgentCli): number {
  return cli === 'gemini' ? HOOK_TIMEOUT_SECONDS * 1000 : HOOK_TIMEOUT_SECONDS;
}

/** A config file the user wrote that cannot be read; nothing is written when one is found. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
  constructor(
    readonly path: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${path}:${line}:${column}: ${reason}`);
  }
}

/** T45: whether a hook handler's command is one `init` wrote for this CLI (so re-runs update it and uninstall removes it). */
export function isOwnHookCommand(command: unknown, cli: AgentCli): boolean {
  return typeof command === 'string' && new RegExp(`(^|\\s)hook ${cli}(\\s|$)`).test(command) && /\s--db\s/.test(command) && /session-state-kit|cli\.(c|m)?js/.test(command);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** Parses a JSON config file (absent or blank: an empty object), or throws ConfigFileError naming the line and column. */
export function readJsonConfig(path: string, text: string | undefined): JsonObject {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const where = at ? lineColumn(text, Number(at[1])) : lineColumn(text, text.length);
    throw new ConfigFileError(path, where.line, where.column, `not valid JSON (${message.replace(/ in JSON at position \d+.*$/s, '')})`);
  }
  if (!isObject(value)) throw new ConfigFileError(path, 1, 1, 'must hold a JSON object');
  return value;
}

/** The file's own indentation (2 spaces when it has none) and final newline, so a rewrite changes only what `init` changed. */
function writeJsonLike(original: string | undefined, value: JsonObject): string {
  const indent = /\n([ \t]+)"/.exec(original ?? '')?.[1] ?? '  ';
  return `${JSON.stringify(value, null, indent)}${original === undefined || original.endsWith('\n') ? '\n' : ''}`;
}

/** Parses a TOML file (absent: empty), or throws ConfigFileError naming the line and column. */
export function readTomlConfig(path: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const e = error as { line?: number; column?: number; message?: string };
    const reason = String(e.message ?? error).split('\n').pop()!.trim();
    throw new ConfigFileError(path, e.line ?? 1, (e.column ?? 0) + 1, `not valid TOML (${reason})`);
  }
}

interface HookHandler {
  type?: Json;
  command?: Json;
  timeout?: Json;
  [key: string]: Json | undefined;
}

/**
 * T45: `{"hooks": {<Event>: [{"matcher"?, "hooks": [handler...]}]}}`, the shape Claude Code's
 * settings.json and Codex's hooks.json share. Installs one handler per event with `command`,
 * updating in place a handler `init` wrote before (its position, and so Codex's trust key, stays)
 * and appending a group only where there is none; other groups and handlers are untouched.
 * `command` undefined removes every own handler (uninstall), and the groups and tables that become
 * empty by it.
 */
export function editHookSettings(settings: JsonObject, cli: AgentCli, command: string | undefined): JsonObject {
  const out = structuredClone(settings);
  const hadHooks = isObject(out['hooks']);
  const hooks: JsonObject = hadHooks ? (out['hooks'] as JsonObject) : {};
  for (const event of INIT_HOOK_EVENTS[cli]) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : undefined;
    let placed = false;
    if (groups !== undefined) {
      for (let g = 0; g < groups.length; g++) {
        const group = groups[g];
        if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
        const handlers = group['hooks'] as Json[];
        for (let h = 0; h < handlers.length; h++) {
          const handler = handlers[h];
          if (!isObject(handler) || !isOwnHookCommand(handler['command'], cli)) continue;
          if (command !== undefined && !placed) {
            const updated: HookHandler = { ...handler, type: 'command', command, timeout: hookTimeout(cli) };
            handlers[h] = updated as Json;
            placed = true;
          } else {
            handlers.splice(h--, 1);
          }
        }
        if (handlers.length === 0) groups.splice(g--, 1);
      }
      if (groups.length === 0) delete hooks[event];
    }
    if (command !== undefined && !placed) {
      const list = groups ?? [];
      list.push({ hooks: [{ type: 'command', command, timeout: hookTimeout(cli) }] });
      hooks[event] = list;
    }
  }
  if (Object.keys(hooks).length > 0 || (hadHooks && command !== undefined)) out['hooks'] = hooks;
  else if (hadHooks) delete out['hooks'];
  return out;
}

/** T45: `{"mcpServers": {"session-state-kit": {command, args}}}` (Claude Code's .mcp.json and ~/.claude.json, Gemini's settings.json). Undefined removes it. */
export function editClaudeMcp(config: JsonObject, server: { command: string; args: string[] } | undefined): JsonObject {
  const out = structuredClone(config);
  const servers: JsonObject = isObject(out['mcpServers']) ? (out['mcpServers'] as JsonObject) : {};
  if (server === undefined) {
    if (!isObject(out['mcpServers'])) return out;
    delete servers[MCP_SERVER_NAME];
    if (Object.keys(servers).length === 0) delete out['mcpServers'];
    return out;
  }
  servers[MCP_SERVER_NAME] = { ...(isObject(servers[MCP_SERVER_NAME]) ? (servers[MCP_SERVER_NAME] as JsonObject) : {}), command: server.command, args: server.args };
  out['mcpServers'] = servers;
  return out;
}

/** Edits a JSON file's text: its object through `edit`, written back in the file's own indentation. */
export function editJsonText(path: string, text: string | undefined, edit: (value: JsonObject) => JsonObject): string | undefined {
  const before = readJsonConfig(path, text);
  const after = edit(before);
  if (JSON.stringify(after) === JSON.stringify(before)) return text;
  if (Object.keys(after).length === 0 && text !== undefined && Object.keys(before).length > 0) return '{}\n';
  return writeJsonLike(text, after);
}

/** T46: one Codex trust entry: `[hooks.state."<key>"] trusted_hash = "sha256:..."`. */
export interface CodexTrust {
  key: string;
  hash: string;
}

/** `SessionStart` → `session_start`, as Codex names events in trust keys and hashes. */
export function codexSnakeEvent(event: string): string {
  return event.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '_') + c.toLowerCase());
}

/** Canonical JSON: object keys sorted at every depth, no spaces (the form Codex hashes). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * T46: the hash Codex 0.171.0 trusts a command handler by: SHA-256 over the canonical JSON of
 * `{event_name, matcher?, hooks: [{type, command, timeout, async}]}` with Codex's defaults filled
 * in (timeout 600, async false). Checked against `codex app-server`'s `hooks/list` in the tests.
 */
export function codexHookHash(event: string, handler: { command: string; timeout?: number; async?: boolean }, matcher?: string): string {
  const identity: Record<string, unknown> = {
    event_name: codexSnakeEvent(event),
    hooks: [{ type: 'command', command: handler.command, timeout: handler.timeout ?? 600, async: handler.async ?? false }],
  };
  if (matcher !== undefined) identity['matcher'] = matcher;
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** T46: the trust entries for exactly the handlers `init` wrote into a Codex hooks.json at `hooksPath`. */
export function codexOwnTrust(hooksPath: string, settings: JsonObject): CodexTrust[] {
  const hooks = isObject(settings['hooks']) ? (settings['hooks'] as JsonObject) : {};
  const out: CodexTrust[] = [];
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (!isObject(group) || !Array.isArray(group['hooks'])) return;
      (group['hooks'] as Json[]).forEach((handler, h) => {
        if (!isObject(handler) || !isOwnHookCommand(handler['command'], 'codex')) return;
        const matcher = typeof group['matcher'] === 'string' ? group['matcher'] : undefined;
        const timeout = typeof handler['timeout'] === 'number' ? handler['timeout'] : undefined;
        out.push({
          key: `${hooksPath}:${codexSnakeEvent(event)}:${g}:${h}`,
          hash: codexHookHash(event, { command: handler['command'] as string, ...(timeout !== undefined ? { timeout } : {}) }, matcher),
        });
      });
    });
  }
  return out;
}

/** The trust Codex has recorded (`hooks.state.<key>.trusted_hash`) in a parsed config.toml. */
export function codexRecordedTrust(config: Record<string, unknown>): Map<string, string> {
  const state = isObject(config['hooks']) && isObject((config['hooks'] as JsonObject)['state']) ? ((config['hooks'] as JsonObject)['state'] as JsonObject) : {};
  const out = new Map<string, string>();
  for (const [key, entry] of Object.entries(state)) if (isObject(entry) && typeof entry['trusted_hash'] === 'string') out.set(key, entry['trusted_hash']);
  return out;
}

/**
 * T45-T46: a Codex config.toml's text with the MCP server entry set (or removed) and the given
 * trust entries set, and trust entries under `dropTrustPrefix` that are not in `trust` removed
 * (an own handler that moved or was uninstalled). Everything else, comments included, is kept.
 */
export function editCodexToml(
  path: string,
  text: string | undefined,
  change: { mcp?: { command: string; args: string[] } | null; trust?: readonly CodexTrust[]; dropTrust?: (key: string) => boolean },
): string | undefined {
  const before = readTomlConfig(path, text);
  const after = structuredClone(before) as Record<string, unknown>;
  if (change.mcp !== undefined) {
    const servers = isObject(after['mcp_servers']) ? (after['mcp_servers'] as Record<string, unknown>) : {};
    if (change.mcp === null) delete servers[MCP_SERVER_NAME];
    else servers[MCP_SERVER_NAME] = { ...(isObject(servers[MCP_SERVER_NAME]) ? (servers[MCP_SERVER_NAME] as JsonObject) : {}), command: change.mcp.command, args: change.mcp.args };
    if (Object.keys(servers).length > 0) after['mcp_servers'] = servers;
    else delete after['mcp_servers'];
  }
  if (change.trust !== undefined || change.dropTrust !== undefined) {
    const hooks = isObject(after['hooks']) ? (after['hooks'] as Record<string, unknown>) : {};
    const state = isObject(hooks['state']) ? (hooks['state'] as Record<string, unknown>) : {};
    const keep = new Set((change.trust ?? []).map((t) => t.key));
    if (change.dropTrust !== undefined) for (const key of Object.keys(state)) if (change.dropTrust(key) && !keep.has(key)) delete state[key];
    for (const t of change.trust ?? []) state[t.key] = { ...(isObject(state[t.key]) ? (state[t.key] as JsonObject) : {}), trusted_hash: t.hash };
    if (Object.keys(state).length > 0) hooks['state'] = state;
    else delete hooks['state'];
    if (Object.keys(hooks).length > 0) after['hooks'] = hooks;
    else delete after['hooks'];
  }
  if (JSON.stringify(after) === JSON.stringify(before)) return text;
  return patchManagedToml(text ?? '', before, after);
}

/** The tables `init` owns in a Codex config.toml: its MCP server and its trust entries. */
function managedLeaves(config: Record<string, unknown>): Map<string, { path: string[]; value: unknown }> {
  const out = new Map<string, { path: string[]; value: unknown }>();
  const servers = config['mcp_servers'];
  if (isObject(servers) && servers[MCP_SERVER_NAME] !== undefined) out.set(`mcp/${MCP_SERVER_NAME}`, { path: ['mcp_servers', MCP_SERVER_NAME], value: servers[MCP_SERVER_NAME] });
  const hooks = config['hooks'];
  const state = isObject(hooks) ? hooks['state'] : undefined;
  if (isObject(state)) for (const [key, value] of Object.entries(state)) out.set(`trust/${key}`, { path: ['hooks', 'state', key], value });
  return out;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  for (const key of path.slice(0, -1)) {
    if (!isObject(at[key])) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
}

/**
 * Changes and removals go through toml-patch, which edits the document in place. A table that is
 * new is appended as its own `[section]` at the end instead: toml-patch places a new key of a table
 * that exists only through its sub-tables as a dotted key at the top of the file, where a later
 * removal takes the user's opening comment with it. The result is parsed again and must equal the
 * intended value; otherwise the plain patch is used.
 */
function patchManagedToml(text: string, before: Record<string, unknown>, after: Record<string, unknown>): string {
  // toml-patch drops blank lines that open a document; they are the user's, so they come back.
  const lead = /^(\r?\n)*/.exec(text)![0];
  const body = text.slice(lead.length);
  const finish = (patched: string) => (patched === '' || patched.endsWith('\n') || !(text === '' || text.endsWith('\n')) ? patched : `${patched}\n`);
  const plain = () => {
    const patched = patchToml(body, after, { inlineTableStart: 4 });
    return finish(lead + (patched.trim() === '' ? '' : patched));
  };
  const had = managedLeaves(before);
  const added = [...managedLeaves(after)].filter(([id]) => !had.has(id));
  if (added.length === 0) return plain();
  const withoutAdded = structuredClone(after);
  for (const [, leaf] of added) {
    const parent = leaf.path.slice(0, -1).reduce<Record<string, unknown> | undefined>((at, k) => (isObject(at?.[k]) ? (at![k] as Record<string, unknown>) : undefined), withoutAdded);
    if (parent !== undefined) delete parent[leaf.path[leaf.path.length - 1]!];
  }
  for (const key of ['mcp_servers', 'hooks'] as const) {
    const table = withoutAdded[key];
    if (isObject(table) && key === 'hooks' && isObject(table['state']) && Object.keys(table['state']).length === 0 && !isObject((before['hooks'] as Record<string, unknown> | undefined)?.['state'])) delete table['state'];
    if (isObject(withoutAdded[key]) && Object.keys(withoutAdded[key] as object).length === 0 && before[key] === undefined) delete withoutAdded[key];
  }
  const kept = JSON.stringify(withoutAdded) === JSON.stringify(before) ? body : patchToml(body, withoutAdded, { inlineTableStart: 4 });
  const sections: string[] = [];
  for (const [, leaf] of added) {
    const one: Record<string, unknown> = {};
    setPath(one, leaf.path, leaf.value);
    // Only the leaf's own [section]: its parents exist implicitly, and may already be in the file.
    const printed = stringifyToml(one, { inlineTableStart: 4 })
      .split('\n\n')
      .filter((block) => block.trim() !== '' && !/^\[[^\]]+\]\s*$/.test(block.trim()))
      .join('\n\n');
    sections.push(printed.trim());
  }
  const appended = finish(`${lead}${kept}${kept === '' || kept.endsWith('\n\n') ? '' : kept.endsWith('\n') ? '\n' : '\n\n'}${sections.join('\n\n')}`);
  try {
    if (JSON.stringify(normalize(parseToml(appended))) === JSON.stringify(normalize(after))) return appended;
  } catch {
    // Not valid (the parent was an inline table, say): fall back to the plain patch.
  }
  return plain();
}

/** Key order does not matter to TOML readers; values do. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, normalize(value[k])]));
  return value;
}
