import { createHash } from 'node:crypto';
import { parse as parseToml, patch as patchToml, stringify as stringifyToml } from '@decimalturn/toml-patch';
import { parse as parseJsonc, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';
import { setJsonText } from './json-text.js';

/**
 * The edits `init` makes to the files Claude Code and Codex read (PROTOCOL.md T45-T47), as pure
 * text-to-text functions: a file's text in, its new text out, so that a run can be shown as a diff
 * before anything is written, and a property test can round-trip generated files. JSON files keep
 * their key order and indentation; TOML files keep comments and layout (toml-patch edits the
 * document in place rather than printing it anew).
 */

export type AgentCli = 'claude-code' | 'codex' | 'gemini' | 'qwen' | 'copilot' | 'opencode';

/** The CLIs `init` and `doctor` know, in the order doctor reports them. */
export const AGENT_CLIS: readonly AgentCli[] = ['claude-code', 'codex', 'gemini', 'qwen', 'copilot', 'opencode'];

/** T45: the hook events `init` registers, per CLI (what each runtime's hook acts on, T9, T40). */
export const INIT_HOOK_EVENTS: Record<AgentCli, readonly string[]> = {
  'claude-code': ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'],
  // Codex 0.171.0's SessionEnd carries no clear (T42): nothing to record, so no handler to run.
  codex: ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact'],
  gemini: ['SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd'],
  // T58: what `hook qwen` acts on (T56); Stop and PreCompact would only run to say nothing.
  qwen: ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'],
  // T52: PascalCase names, whose payloads name their event; SessionEnd records nothing (a clear is an exit there).
  copilot: ['SessionStart', 'UserPromptSubmit', 'PreCompact'],
  // T63: OpenCode runs no command hooks; init writes a plugin file (opencodePluginText).
  opencode: [],
};

/** The name `init` gives the MCP server entry in the CLIs' files. */
export const MCP_SERVER_NAME = 'session-state-kit';
/**
 * T55: Copilot's entry has a name of its own: Copilot also reads `.mcp.json`, where Claude Code's
 * entry is `session-state-kit`, and a workspace entry shadows a user entry of the same name.
 */
export const COPILOT_MCP_SERVER_NAME = 'session-state-kit-copilot';
export function mcpServerName(cli: AgentCli): string {
  return cli === 'copilot' ? COPILOT_MCP_SERVER_NAME : MCP_SERVER_NAME;
}

/**
 * How a CLI lays out its hook handlers: `grouped` is `hooks.<Event>: [{matcher?, hooks: [handler]}]`
 * (Claude Code, Codex, Gemini CLI), `flat` is Copilot's `{version: 1, hooks: {<Event>: [handler]}}`
 * with the command in `bash` and the bound in `timeoutSec`.
 */
export type HookShape = 'grouped' | 'flat';
export function hookShape(cli: AgentCli): HookShape {
  return cli === 'copilot' ? 'flat' : 'grouped';
}

/**
 * T49: the tools that only read (T3, T4), which `init --allow-read-tools` approves so a
 * non-interactive run (`claude -p`, `codex exec`) can call them; the tools that write (watch,
 * unwatch, take notices) keep asking.
 */
export const READ_ONLY_TOOLS = ['session_status', 'sessions_list'] as const;

/** Claude Code's permission rule for one MCP tool of the kit's server (`mcp__<server>__<tool>`). */
export const claudeToolRule = (tool: string) => `mcp__${MCP_SERVER_NAME}__${tool}`;

/** T45: a hook runs at most this long (seconds); a stuck store must not hold the person's prompt for Codex's default 600 s. */
export const HOOK_TIMEOUT_SECONDS = 30;
/** The same bound in each CLI's unit: Claude Code, Codex, Qwen Code (T58) and Copilot read seconds, Gemini CLI milliseconds. */
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

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/**
 * How a CLI reads its JSON files: Gemini CLI and Qwen Code allow comments in settings.json,
 * OpenCode comments and trailing commas in its config; Claude Code and Codex read strict JSON.
 */
export interface JsonFlavor {
  comments: boolean;
  trailingCommas?: boolean;
}
export const STRICT_JSON: JsonFlavor = { comments: false };

/**
 * Parses a JSON config file (absent or blank: an empty object), or throws ConfigFileError naming
 * the line and column. Only the parts `init` edits are ever re-printed (T45): the rest of the text,
 * numbers past double precision and line endings included, stays byte for byte.
 */
export function readJsonConfig(path: string, text: string | undefined, flavor: JsonFlavor = STRICT_JSON): JsonObject {
  if (text === undefined || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { disallowComments: !flavor.comments, allowTrailingComma: flavor.trailingCommas === true, allowEmptyContent: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const where = lineColumn(text, first.offset);
    const code = printParseErrorCode(first.error);
    const what = code === 'InvalidCommentToken' ? 'comments are not allowed in this file' : code;
    throw new ConfigFileError(path, where.line, where.column, `not valid JSON (${what})`);
  }
  if (!isObject(value)) throw new ConfigFileError(path, 1, 1, 'must hold a JSON object');
  return value;
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

/**
 * One JSON document edited in place: each change is a minimal text edit (json-text.ts),
 * so whatever `init` does not own keeps its exact bytes (T45).
 */
class JsonDocument {
  text: string;
  private readonly created: boolean;
  constructor(
    readonly path: string,
    original: string | undefined,
    private readonly flavor: JsonFlavor,
  ) {
    this.created = original === undefined || original.trim() === '';
    this.text = this.created ? '{}' : original!;
  }
  value(): JsonObject {
    return readJsonConfig(this.path, this.text, this.flavor);
  }
  set(path: JSONPath, value: unknown): void {
    this.text = setJsonText(this.text, path, value);
  }
  /** The new text: a file `init` creates ends with a newline. */
  result(original: string | undefined): string | undefined {
    if (this.text === (original ?? '{}')) return original;
    return this.created ? `${this.text}\n` : this.text;
  }
}

/** A handler of the hooks settings shape, where it sits. */
export interface HandlerAt {
  event: string;
  /** Grouped: the group's index; flat: the handler's. */
  group: number;
  /** Grouped: the handler's index in its group; flat: -1. */
  handler: number;
  value: JsonObject;
  /** The shell command it runs (`command`; in the flat shape `bash`, else `command`). */
  command: unknown;
  /** Where its command sits, by key. */
  commandKey: string;
}

/** Where a handler sits, as messages name it: `Event[group][handler]`, or `Event[i]` in the flat shape. */
export function handlerPlace(h: HandlerAt): string {
  return h.handler < 0 ? `${h.event}[${h.group}]` : `${h.event}[${h.group}][${h.handler}]`;
}

/** Every command handler under `hooks.<event>`, in the CLI's shape (Claude Code, Codex, Gemini CLI and Qwen Code share the grouped one). */
export function hookHandlers(settings: JsonObject, events?: readonly string[], shape: HookShape = 'grouped'): HandlerAt[] {
  const hooks = isObject(settings['hooks']) ? (settings['hooks'] as JsonObject) : {};
  const out: HandlerAt[] = [];
  for (const event of events ?? Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (shape === 'flat') {
        if (!isObject(group)) return;
        const commandKey = typeof group['bash'] === 'string' || group['command'] === undefined ? 'bash' : 'command';
        out.push({ event, group: g, handler: -1, value: group, command: group[commandKey], commandKey });
        return;
      }
      if (!isObject(group) || !Array.isArray(group['hooks'])) return;
      (group['hooks'] as Json[]).forEach((handler, h) => {
        if (isObject(handler)) out.push({ event, group: g, handler: h, value: handler, command: handler['command'], commandKey: 'command' });
      });
    });
  }
  return out;
}

/**
 * T45: `{"hooks": {<Event>: [{"matcher"?, "hooks": [handler...]}]}}`, the shape Claude Code's
 * settings.json, Codex's hooks.json and Gemini CLI's settings.json share. Installs one handler per
 * event with `command`: the first handler `own` recognises is updated where it is (so Codex's trust
 * key, which names its position, stays; keys a person added to it stay too), further own handlers
 * are removed, and a group is appended only where there is none. `command` undefined removes every
 * own handler (uninstall), and the groups, events and table that become empty by it. Handlers
 * `own` does not recognise are never touched.
 */
export function editHooksText(path: string, text: string | undefined, cli: AgentCli, command: string | undefined, own: (command: unknown) => boolean, flavor: JsonFlavor = STRICT_JSON): string | undefined {
  if (hookShape(cli) === 'flat') return editFlatHooksText(path, text, cli, command, own, flavor);
  const doc = new JsonDocument(path, text, flavor);
  const hadHooks = isObject(doc.value()['hooks']);
  for (const event of INIT_HOOK_EVENTS[cli]) {
    const mine = hookHandlers(doc.value(), [event]).filter((h) => own(h.value['command']));
    const keep = command === undefined ? undefined : mine[0];
    if (keep !== undefined) {
      const at = ['hooks', event, keep.group, 'hooks', keep.handler];
      if (keep.value['type'] !== 'command') doc.set([...at, 'type'], 'command');
      if (keep.value['command'] !== command) doc.set([...at, 'command'], command);
      if (keep.value['timeout'] !== hookTimeout(cli)) doc.set([...at, 'timeout'], hookTimeout(cli));
    }
    // Remove from the last, so the positions still to remove stay valid.
    for (const h of mine.filter((m) => m !== keep).reverse()) {
      const groups = (doc.value()['hooks'] as JsonObject)[event] as Json[];
      const handlers = (groups[h.group] as JsonObject)['hooks'] as Json[];
      if (handlers.length > 1) doc.set(['hooks', event, h.group, 'hooks', h.handler], undefined);
      else if (groups.length > 1) doc.set(['hooks', event, h.group], undefined);
      else doc.set(['hooks', event], undefined);
    }
    if (command !== undefined && keep === undefined) {
      const entry = { hooks: [{ type: 'command', command, timeout: hookTimeout(cli) }] };
      const hooks = doc.value()['hooks'];
      const groups = isObject(hooks) ? hooks[event] : undefined;
      if (Array.isArray(groups)) doc.set(['hooks', event, groups.length], entry);
      else doc.set(['hooks', event], [entry]);
    }
  }
  const hooks = doc.value()['hooks'];
  if (command === undefined && hadHooks && isObject(hooks) && Object.keys(hooks).length === 0) doc.set(['hooks'], undefined);
  return doc.result(text);
}

/**
 * T52, T55: Copilot's hooks file, `{"version": 1, "hooks": {<Event>: [{type, bash, timeoutSec}]}}`,
 * edited as editHooksText edits the grouped shape: one own handler per event, updated where it is
 * (a `command` key a person used instead of `bash` stays the key), others left alone. A file init
 * creates starts with `version`. Uninstalling keeps an emptied `hooks` object: Copilot reports a
 * hooks file without one as invalid.
 */
function editFlatHooksText(path: string, text: string | undefined, cli: AgentCli, command: string | undefined, own: (command: unknown) => boolean, flavor: JsonFlavor): string | undefined {
  const doc = new JsonDocument(path, text, flavor);
  if (command !== undefined && (text === undefined || text.trim() === '')) doc.set(['version'], 1);
  for (const event of INIT_HOOK_EVENTS[cli]) {
    const mine = hookHandlers(doc.value(), [event], 'flat').filter((h) => own(h.command));
    const keep = command === undefined ? undefined : mine[0];
    if (keep !== undefined) {
      const at = ['hooks', event, keep.group];
      if (keep.value['type'] !== 'command') doc.set([...at, 'type'], 'command');
      if (keep.command !== command) doc.set([...at, keep.commandKey], command);
      if (keep.value['timeoutSec'] !== hookTimeout(cli)) doc.set([...at, 'timeoutSec'], hookTimeout(cli));
    }
    for (const h of mine.filter((m) => m !== keep).reverse()) {
      const handlers = (doc.value()['hooks'] as JsonObject)[event] as Json[];
      if (handlers.length > 1) doc.set(['hooks', event, h.group], undefined);
      else doc.set(['hooks', event], undefined);
    }
    if (command !== undefined && keep === undefined) {
      const entry = { type: 'command', bash: command, timeoutSec: hookTimeout(cli) };
      const hooks = doc.value()['hooks'];
      const handlers = isObject(hooks) ? hooks[event] : undefined;
      if (Array.isArray(handlers)) doc.set(['hooks', event, handlers.length], entry);
      else doc.set(['hooks', event], [entry]);
    }
  }
  return doc.result(text);
}

/** T45: `{"mcpServers": {<name>: {command, args}}}` (Claude Code's .mcp.json and ~/.claude.json, Gemini's and Qwen's settings.json, Copilot's files). Undefined removes it. */
export function editMcpText(path: string, text: string | undefined, server: { command: string; args: string[] } | undefined, flavor: JsonFlavor = STRICT_JSON, name: string = MCP_SERVER_NAME): string | undefined {
  const doc = new JsonDocument(path, text, flavor);
  const servers = doc.value()['mcpServers'];
  const current = isObject(servers) ? servers[name] : undefined;
  if (server === undefined) {
    if (current === undefined) return text;
    if (Object.keys(servers as JsonObject).length > 1) doc.set(['mcpServers', name], undefined);
    else doc.set(['mcpServers'], undefined);
    return doc.result(text);
  }
  if (isObject(current)) {
    if (current['command'] !== server.command) doc.set(['mcpServers', name, 'command'], server.command);
    if (JSON.stringify(current['args']) !== JSON.stringify(server.args)) doc.set(['mcpServers', name, 'args'], server.args);
  } else doc.set(['mcpServers', name], { command: server.command, args: server.args });
  return doc.result(text);
}

/**
 * T49: Claude Code's `permissions.allow` with exactly `rules` added (install) or removed
 * (uninstall); every other rule, and the rest of the file, as it was.
 */
export function editAllowedToolsText(path: string, text: string | undefined, rules: readonly string[], add: boolean, flavor: JsonFlavor = STRICT_JSON): string | undefined {
  const doc = new JsonDocument(path, text, flavor);
  for (const rule of rules) {
    const permissions = doc.value()['permissions'];
    const allow = isObject(permissions) && Array.isArray(permissions['allow']) ? (permissions['allow'] as Json[]) : undefined;
    const at = allow?.indexOf(rule) ?? -1;
    if (add && at < 0) {
      if (allow !== undefined) doc.set(['permissions', 'allow', allow.length], rule);
      else doc.set(['permissions', 'allow'], [rule]);
    } else if (!add && at >= 0) {
      // The array and table init made for the rule go with it.
      if (allow!.length > 1) doc.set(['permissions', 'allow', at], undefined);
      else if (Object.keys(permissions as JsonObject).length > 1) doc.set(['permissions', 'allow'], undefined);
      else doc.set(['permissions'], undefined);
    }
  }
  return doc.result(text);
}

/** The `session-state-kit` MCP server entry of a settings text (`mcpServers`), if there is one. */
export function mcpServerEntry(path: string, text: string | undefined, flavor: JsonFlavor = STRICT_JSON): Record<string, unknown> | undefined {
  const servers = readJsonConfig(path, text, flavor)['mcpServers'];
  const entry = isObject(servers) ? servers[MCP_SERVER_NAME] : undefined;
  return isObject(entry) ? entry : undefined;
}

/** T58: the fields Qwen Code 0.24.4 leaves out of a server's approval hash: where it came from and its label. */
const QWEN_UNHASHED = new Set(['scope', 'extensionName', 'description']);

/**
 * T58: the hash Qwen Code binds a project MCP server's approval to: SHA-256 (hex) of the JSON of
 * its entry without the fields it calls non-behavioral, object keys sorted at every depth. Any
 * change to what the server runs (command, args, env, cwd) makes the approval pending again.
 */
export function qwenMcpApprovalHash(entry: Record<string, unknown>): string {
  const behavioral = Object.fromEntries(Object.entries(entry).filter(([k]) => !QWEN_UNHASHED.has(k)));
  return createHash('sha256').update(canonicalJson(behavioral)).digest('hex');
}

/** T58: whether an entry is exactly `{command, args}` as init writes it (labels aside), so that approving it approves nothing else. */
export function isBareMcpEntry(entry: Record<string, unknown>, server: { command: string; args: string[] }): boolean {
  const behavioral = Object.keys(entry).filter((k) => !QWEN_UNHASHED.has(k));
  return behavioral.length === 2 && entry['command'] === server.command && JSON.stringify(entry['args']) === JSON.stringify(server.args);
}

/** T58: Qwen's decision for the kit's server in a project, from `mcpApprovals.json` (`{<project>: {<name>: {hash, status}}}`). */
export function qwenApproval(path: string, text: string | undefined, projectRoot: string): { hash: string; status: string } | undefined {
  const project = readJsonConfig(path, text, { comments: true })[projectRoot];
  const record = isObject(project) ? project[MCP_SERVER_NAME] : undefined;
  return isObject(record) && typeof record['hash'] === 'string' && typeof record['status'] === 'string' ? { hash: record['hash'], status: record['status'] } : undefined;
}

/**
 * T58: `mcpApprovals.json` with the kit's server approved in `projectRoot` for exactly `hash`, or,
 * with `hash` undefined, its record removed when `own` recognises the hash it holds (an approval
 * init gave; a person's decision about another entry stays). A rejection of this very entry is
 * the person's and is kept. Everything else in the file keeps its bytes.
 */
export function editQwenApprovalsText(path: string, text: string | undefined, projectRoot: string, hash: string | undefined, own: (hash: string) => boolean): string | undefined {
  const doc = new JsonDocument(path, text, { comments: true });
  const current = qwenApproval(path, doc.text, projectRoot);
  if (hash !== undefined) {
    if (current?.hash === hash) return text;
    const project = doc.value()[projectRoot];
    if (isObject(project)) doc.set([projectRoot, MCP_SERVER_NAME], { hash, status: 'approved' });
    else doc.set([projectRoot], { [MCP_SERVER_NAME]: { hash, status: 'approved' } });
    return doc.result(text);
  }
  // A rejection is the person's decision, whoever wrote the entry: only an approval is withdrawn.
  if (current === undefined || current.status !== 'approved' || !own(current.hash)) return text;
  const project = doc.value()[projectRoot] as JsonObject;
  if (Object.keys(project).length > 1) doc.set([projectRoot, MCP_SERVER_NAME], undefined);
  else doc.set([projectRoot], undefined);
  return doc.result(text);
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

/** Events whose matcher Codex 0.171.0 ignores (its `hooks/list` reports `matcher: null` for them), so it is not part of their hash. */
const CODEX_MATCHERLESS = new Set(['user_prompt_submit', 'stop']);

/** The parts of a command handler Codex reads, as it reads them. */
export interface CodexHandler {
  command: string;
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
}

/** A hooks.json handler object as Codex reads it: the keys it knows, with their types; others it ignores. */
export function codexHandler(handler: Record<string, unknown>): CodexHandler | undefined {
  if (typeof handler['command'] !== 'string' || (handler['type'] !== undefined && handler['type'] !== 'command')) return undefined;
  return {
    command: handler['command'],
    ...(typeof handler['timeout'] === 'number' ? { timeout: handler['timeout'] } : {}),
    ...(typeof handler['async'] === 'boolean' ? { async: handler['async'] } : {}),
    ...(typeof handler['statusMessage'] === 'string' ? { statusMessage: handler['statusMessage'] } : {}),
  };
}

/**
 * T46: the hash Codex 0.171.0 trusts a command handler by: SHA-256 over the canonical JSON of
 * `{event_name, matcher?, hooks: [{type, command, timeout, async, statusMessage?}]}` with Codex's
 * defaults filled in (timeout 600, async false), the matcher left out where Codex ignores it. A
 * key a person adds that Codex reads (`statusMessage`, `async`) changes the hash; one it ignores
 * does not. Checked against `codex app-server`'s `hooks/list` in the tests.
 */
export function codexHookHash(event: string, handler: CodexHandler, matcher?: string): string {
  const name = codexSnakeEvent(event);
  const hook: Record<string, unknown> = { type: 'command', command: handler.command, timeout: handler.timeout ?? 600, async: handler.async ?? false };
  if (handler.statusMessage !== undefined) hook['statusMessage'] = handler.statusMessage;
  const identity: Record<string, unknown> = { event_name: name, hooks: [hook] };
  if (matcher !== undefined && !CODEX_MATCHERLESS.has(name)) identity['matcher'] = matcher;
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** T46: the trust entry of every handler in a Codex hooks.json at `hooksPath` whose command `trusted` accepts. */
export function codexTrustFor(hooksPath: string, settings: JsonObject, trusted: (command: string) => boolean): CodexTrust[] {
  const out: CodexTrust[] = [];
  for (const at of hookHandlers(settings)) {
    const handler = codexHandler(at.value);
    if (handler === undefined || !trusted(handler.command)) continue;
    const group = ((settings['hooks'] as JsonObject)[at.event] as Json[])[at.group] as JsonObject;
    const matcher = typeof group['matcher'] === 'string' ? group['matcher'] : undefined;
    out.push({ key: `${hooksPath}:${codexSnakeEvent(at.event)}:${at.group}:${at.handler}`, hash: codexHookHash(at.event, handler, matcher) });
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
  change: { mcp?: { command: string; args: string[] } | null; approveTools?: readonly string[]; trust?: readonly CodexTrust[]; dropTrust?: (key: string) => boolean },
): string | undefined {
  const before = readTomlConfig(path, text);
  const after = structuredClone(before) as Record<string, unknown>;
  if (change.mcp !== undefined) {
    const servers = isObject(after['mcp_servers']) ? (after['mcp_servers'] as Record<string, unknown>) : {};
    if (change.mcp === null) delete servers[MCP_SERVER_NAME];
    else {
      const entry: Record<string, unknown> = { ...(isObject(servers[MCP_SERVER_NAME]) ? (servers[MCP_SERVER_NAME] as JsonObject) : {}), command: change.mcp.command, args: change.mcp.args };
      // Codex asks before every MCP call; `approval_mode = "approve"` per tool lets exactly these run.
      if (change.approveTools !== undefined && change.approveTools.length > 0) {
        const tools = isObject(entry['tools']) ? { ...(entry['tools'] as JsonObject) } : {};
        for (const t of change.approveTools) tools[t] = { ...(isObject(tools[t]) ? (tools[t] as JsonObject) : {}), approval_mode: 'approve' };
        entry['tools'] = tools;
      }
      servers[MCP_SERVER_NAME] = entry;
    }
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
  const finish = (patched: string) => (patched === '' || patched.endsWith('\n') || !(text === '' || text.endsWith('\n')) ? patched : `${patched}${text.endsWith('\r\n') ? '\r\n' : '\n'}`);
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
  // A file written with CRLF gets its new sections in CRLF too.
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const gap = kept === '' || kept.endsWith(`${eol}${eol}`) ? '' : kept.endsWith('\n') ? eol : `${eol}${eol}`;
  const appended = finish(`${lead}${kept}${gap}${sections.join('\n\n').replace(/\n/g, eol)}`);
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

/**
 * T63: the plugin file `init opencode` writes into a plugins folder OpenCode loads. It imports the
 * kit's plugin module of this copy by absolute file URL (T50: never a package name resolved when
 * OpenCode starts) and exports only the plugin: OpenCode calls every export of a plugin file.
 */
export function opencodePluginText(module: string, db: string): string {
  return [
    '// session-state-kit: this OpenCode takes part in the team\'s session state (PROTOCOL.md T61-T63).',
    '// Written by "session-state-kit init opencode", which owns this file while it reads exactly so;',
    '// "session-state-kit init opencode --uninstall" removes it.',
    `import { sessionStatePlugin } from ${JSON.stringify(module)};`,
    `export const SessionStateKit = sessionStatePlugin({ db: ${JSON.stringify(db)} });`,
    '',
  ].join('\n');
}

/**
 * T63: a plugin file's text read as one `init opencode` wrote: the module it imports and the
 * database it names, when the text is exactly opencodePluginText of them (any other byte makes it
 * a person's file, which init never changes or removes).
 */
export function parseOpencodePluginText(text: string | undefined): { module: string; db: string } | undefined {
  if (text === undefined) return undefined;
  const m = /^import \{ sessionStatePlugin \} from ("(?:[^"\\\n]|\\.)*");$/m.exec(text);
  const d = /^export const SessionStateKit = sessionStatePlugin\(\{ db: ("(?:[^"\\\n]|\\.)*") \}\);$/m.exec(text);
  if (m === null || d === null) return undefined;
  let module: unknown;
  let db: unknown;
  try {
    module = JSON.parse(m[1]!);
    db = JSON.parse(d[1]!);
  } catch {
    return undefined;
  }
  if (typeof module !== 'string' || typeof db !== 'string') return undefined;
  return opencodePluginText(module, db) === text ? { module, db } : undefined;
}

/** T64: the kit's entry in an OpenCode config's `mcp` table, if there is one. */
export function opencodeMcpEntry(path: string, text: string | undefined, flavor: JsonFlavor): Record<string, unknown> | undefined {
  const servers = readJsonConfig(path, text, flavor)['mcp'];
  const entry = isObject(servers) ? servers[MCP_SERVER_NAME] : undefined;
  return isObject(entry) ? entry : undefined;
}

/** T64: an OpenCode `mcp` entry (`{type: "local", command: [...]}`) as the `{command, args}` the other CLIs' entries are read as. */
export function opencodeMcpCommand(entry: unknown): { command: unknown; args: unknown } | undefined {
  if (!isObject(entry) || !Array.isArray(entry['command']) || entry['command'].length === 0) return undefined;
  const [command, ...args] = entry['command'] as Json[];
  return { command, args };
}

/**
 * T63, T64: `{"mcp": {"session-state-kit": {"type": "local", "command": [...]}}}` in an OpenCode
 * config (comments allowed, as OpenCode reads them). Keys a person added to the entry (`enabled`,
 * `environment`, `timeout`) stay; undefined removes the entry, and the table it empties.
 */
export function editOpencodeMcpText(path: string, text: string | undefined, server: { command: string; args: string[] } | undefined, flavor: JsonFlavor): string | undefined {
  const doc = new JsonDocument(path, text, flavor);
  const servers = doc.value()['mcp'];
  const current = isObject(servers) ? servers[MCP_SERVER_NAME] : undefined;
  if (server === undefined) {
    if (current === undefined) return text;
    if (Object.keys(servers as JsonObject).length > 1) doc.set(['mcp', MCP_SERVER_NAME], undefined);
    else doc.set(['mcp'], undefined);
    return doc.result(text);
  }
  const command = [server.command, ...server.args];
  if (isObject(current)) {
    if (current['type'] !== 'local') doc.set(['mcp', MCP_SERVER_NAME, 'type'], 'local');
    if (JSON.stringify(current['command']) !== JSON.stringify(command)) doc.set(['mcp', MCP_SERVER_NAME, 'command'], command);
  } else doc.set(['mcp', MCP_SERVER_NAME], { type: 'local', command });
  return doc.result(text);
}
