import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real agent binaries, run offline: each in a throwaway project directory with a throwaway
 * HOME (and CODEX_HOME), against a loopback stand-in for its model API. Nothing else of the
 * caller's environment reaches them (no API keys, no user config), so a run is the same on every
 * machine and never touches the network.
 */
const require = createRequire(import.meta.url);

export interface BinaryInfo {
  /** The command to run (argv[0] and leading arguments). */
  command: string[];
  /** The npm package that ships it and its pinned version. */
  packageName: string;
  packageVersion: string;
}

export type Found = { ok: true; binary: BinaryInfo } | { ok: false; reason: string };

function packageJson(name: string): { version: string; path: string } | undefined {
  try {
    const path = require.resolve(`${name}/package.json`);
    return { version: (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version, path };
  } catch {
    return undefined;
  }
}

/** Codex CLI: the npm launcher (`bin/codex.js`) of `@openai/codex`, which runs the platform package's binary. */
export function findCodex(): Found {
  const main = packageJson('@openai/codex');
  if (!main) return { ok: false, reason: '@openai/codex is not installed (npm install)' };
  const platform = `@openai/codex-${process.platform}-${process.arch}`;
  if (!packageJson(platform)) return { ok: false, reason: `the Codex platform package ${platform} is not installed (an optional dependency of @openai/codex)` };
  return { ok: true, binary: { command: [process.execPath, join(dirname(main.path), 'bin', 'codex.js')], packageName: '@openai/codex', packageVersion: main.version } };
}

/** Gemini CLI: the bundled `gemini.js` of `@google/gemini-cli`, run with this Node. */
export function findGemini(): Found {
  const main = packageJson('@google/gemini-cli');
  if (!main) return { ok: false, reason: '@google/gemini-cli is not installed (npm install)' };
  return { ok: true, binary: { command: [process.execPath, join(dirname(main.path), 'bundle', 'gemini.js')], packageName: '@google/gemini-cli', packageVersion: main.version } };
}

/**
 * A user's Gemini settings for offline runs: API-key auth, and no update check, telemetry or usage
 * statistics (each reaches for the network, and the process waits for it before it exits).
 */
export const GEMINI_OFFLINE_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  telemetry: { enabled: false },
  privacy: { usageStatisticsEnabled: false },
};
/** A model named on the command line: Gemini CLI then skips its model router (one more model call per prompt). */
export const GEMINI_MODEL_ARGS = ['-m', 'gemini-2.5-flash'];

/** Environment for a Gemini CLI run in a sandbox, talking to a Gemini API stand-in at `apiUrl` (API-key auth, workspace trusted). */
export function geminiEnv(box: Sandbox, apiUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: box.home, TMPDIR: tmpdir(), GEMINI_API_KEY: 'offline', GOOGLE_GEMINI_BASE_URL: apiUrl, GEMINI_CLI_TRUST_WORKSPACE: 'true', ...extra };
}

/** Qwen Code: the `cli-entry.js` of `@qwen-code/qwen-code`, run with this Node (it declares Node 22; `-p` and stream-json runs work on 20). */
export function findQwen(): Found {
  const main = packageJson('@qwen-code/qwen-code');
  if (!main) return { ok: false, reason: '@qwen-code/qwen-code is not installed (npm install)' };
  return { ok: true, binary: { command: [process.execPath, join(dirname(main.path), 'cli-entry.js')], packageName: '@qwen-code/qwen-code', packageVersion: main.version } };
}

/**
 * A user's Qwen Code settings for offline runs: no usage statistics (0.24.4 sends them to a host of
 * its own, looked up in DNS, unless told not to), no update check or telemetry, and no automatic
 * memory extraction (a second model request after each turn, which would blur what a turn sent).
 */
export const QWEN_OFFLINE_SETTINGS = {
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false },
  telemetry: { enabled: false },
  memory: { enableManagedAutoMemory: false },
};
/** Qwen Code talks to an OpenAI-compatible API named by OPENAI_BASE_URL (see qwenEnv). */
export const QWEN_AUTH_ARGS = ['--auth-type', 'openai'];

/** Environment for a Qwen Code run in a sandbox, talking to a chat-completions stand-in at `baseUrl`. */
export function qwenEnv(box: Sandbox, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: box.home, TMPDIR: tmpdir(), OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'offline', OPENAI_MODEL: 'standin-model', ...extra };
}

/**
 * The environment that loads loopback-only.cjs into a CLI written for Node and every Node process
 * it starts (hooks, MCP servers): any connection or lookup past loopback fails and is logged to
 * `log`, which a test then expects empty (offline by check, not by hope).
 */
export function loopbackOnlyEnv(log: string): Record<string, string> {
  return { NODE_OPTIONS: `--require ${JSON.stringify(join(dirname(fileURLToPath(import.meta.url)), 'loopback-only.cjs'))}`, SSK_NET_LOG: log };
}

/**
 * GitHub Copilot CLI: the native executable of the platform package (`@github/copilot-<os>-<arch>`,
 * musl builds as `linuxmusl`), which the npm launcher of `@github/copilot` would start.
 */
export function findCopilot(): Found {
  const main = packageJson('@github/copilot');
  if (!main) return { ok: false, reason: '@github/copilot is not installed (npm install)' };
  const platforms = process.platform === 'linux' ? [`linux-${process.arch}`, `linuxmusl-${process.arch}`] : [`${process.platform}-${process.arch}`];
  for (const platform of platforms) {
    // Its `exports` names the executable only (no package.json subpath).
    let executable: string;
    try {
      executable = require.resolve(`@github/copilot-${platform}`);
    } catch {
      continue;
    }
    return { ok: true, binary: { command: [executable], packageName: '@github/copilot', packageVersion: main.version } };
  }
  return { ok: false, reason: `the Copilot CLI platform package @github/copilot-${platforms[0]} is not installed (an optional dependency of @github/copilot)` };
}

/**
 * Environment for a Copilot CLI run in a sandbox, talking to a chat-completions stand-in at
 * `baseUrl` (a custom provider: no GitHub login; COPILOT_OFFLINE turns off every other network
 * use). The binary unpacks its own runtime (about 235 MB) into a cache on first start: one cache in
 * the temp folder serves every sandbox, so a run does not unpack it again.
 */
export function copilotEnv(box: Sandbox, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    TMPDIR: tmpdir(),
    COPILOT_CACHE_HOME: join(tmpdir(), 'ssk-copilot-cache'),
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    COPILOT_MODEL: 'standin-model',
    ...extra,
  };
}

/** Claude Code: the `claude` executable in the Agent SDK's platform package (the one `query()` spawns). */
export function findClaude(): Found {
  const name = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
  const pkg = packageJson(name);
  if (!pkg) return { ok: false, reason: `the Claude Code binary's platform package ${name} is not installed (an optional dependency of @anthropic-ai/claude-agent-sdk)` };
  const sdk = packageJson('@anthropic-ai/claude-agent-sdk');
  return { ok: true, binary: { command: [join(dirname(pkg.path), process.platform === 'win32' ? 'claude.exe' : 'claude')], packageName: '@anthropic-ai/claude-agent-sdk', packageVersion: sdk?.version ?? pkg.version } };
}

/**
 * `SSK_AGENT_BINARIES=off` skips every check that runs a pinned agent binary, silently and also
 * under CI. Only the mutation selection sets it: a mutant that such a check covers would start the
 * binary again for each run (seconds each), and the fixtures those checks hold stay in the run.
 */
export function liveBinariesOff(): boolean {
  return process.env['SSK_AGENT_BINARIES'] === 'off';
}

/**
 * Whether a test that needs this binary runs. A missing platform package skips it with a printed
 * reason; under `CI=true` it throws instead, so CI can never pass by skipping.
 */
export function binaryOrSkip(found: Found, what: string): BinaryInfo | undefined {
  if (liveBinariesOff()) return undefined;
  if (found.ok) return found.binary;
  if (process.env['CI'] === 'true') throw new Error(`${what}: ${found.reason}; CI must run it`);
  console.warn(`skipped ${what}: ${found.reason}`);
  return undefined;
}

/** A throwaway place for one agent run: a project directory and a home (with `.codex` as CODEX_HOME). */
export interface Sandbox {
  root: string;
  project: string;
  home: string;
  codexHome: string;
  /** Writes a file under the sandbox (parent directories made). */
  write(relative: string, text: string): string;
  remove(): void;
}

export function makeSandbox(prefix: string): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `ssk-${prefix}-`));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const codexHome = join(home, '.codex');
  for (const d of [project, home, codexHome]) mkdirSync(d, { recursive: true });
  return {
    root,
    project,
    home,
    codexHome,
    write(relative, text) {
      const path = join(root, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd: string;
  /** The whole environment (nothing is inherited but PATH). */
  env: Record<string, string>;
  /** Text for stdin (default: stdin closed at once). */
  stdin?: string;
  /** Killed after this long (default 180 s: binaries start slowly on a busy machine). */
  timeoutMs?: number;
}

/** Runs a binary to its end and collects what it printed. */
export function runBinary(command: readonly string[], args: readonly string[], options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), ...args], {
      cwd: options.cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
    // A binary that exits before reading its stdin closes the pipe: that is its business, not an error here.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

/** The `-c` overrides that point Codex at a stand-in provider (no login: a custom provider without `env_key` sends no key). */
export function codexProviderArgs(baseUrl: string, model = 'standin-model'): string[] {
  return [
    '-c', 'model_provider="standin"',
    '-c', `model_providers.standin={ name = "standin", base_url = "${baseUrl}", wire_api = "responses" }`,
    '-m', model,
  ];
}

/** Environment for a Codex run in a sandbox. */
export function codexEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: box.home, CODEX_HOME: box.codexHome, TMPDIR: tmpdir(), ...extra };
}

/** Environment for a Claude Code run in a sandbox, talking to a Messages stand-in at `apiUrl`. */
export function claudeEnv(box: Sandbox, apiUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    TMPDIR: tmpdir(),
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-offline',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}

/**
 * Where the binaries' processes connect to, seen by strace (`-f`: the hooks and MCP servers they
 * start too): `wrap` prefixes a command so its connects are logged under `dir`, `peers` lists every
 * internet address they reached or sent to (unix sockets left out). Undefined where strace cannot
 * trace (not installed, ptrace refused), so a test can say it did not look.
 */
export interface ConnectTrace {
  wrap(command: readonly string[]): string[];
  peers(): string[];
}

export function traceConnects(dir: string): ConnectTrace | undefined {
  if (spawnSync('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', '/dev/null', 'true']).status !== 0) return undefined;
  mkdirSync(dir, { recursive: true });
  let runs = 0;
  return {
    wrap: (command) => ['strace', '-f', '-qq', '-e', 'trace=connect,sendto,sendmsg', '-o', join(dir, `run-${++runs}.strace`), ...command],
    peers: () => {
      const found = new Set<string>();
      for (const file of existsSync(dir) ? readdirSync(dir) : []) {
        for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/sin_addr=inet_addr\("([^"]*)"\)|sin6_addr=inet_pton\(AF_INET6, "([^"]*)"\)/g)) found.add(m[1] ?? m[2]!);
      }
      return [...found].sort();
    },
  };
}

/**
 * `codex exec` arguments that make Codex wait for the kit's MCP server (the entry init wrote)
 * before the first request, for up to a minute: otherwise, on a loaded machine, the first request
 * may go out before the server has listed its tools, and the model's call finds no such tool
 * ("unsupported call"). `required` is Codex's own switch for a server a session cannot do without.
 */
export const CODEX_KIT_SERVER_STARTUP = ['-c', 'mcp_servers.session-state-kit.startup_timeout_sec=60', '-c', 'mcp_servers.session-state-kit.required=true'];

/**
 * OpenCode: the native executable of the platform package (`opencode-<os>-<arch>`, with the
 * `-baseline` and `-musl` builds), which the `opencode-ai` launcher's postinstall copies into place.
 * It is a Bun program: NODE_OPTIONS does not reach it (a test checks its offline runs with strace).
 */
export function findOpencode(): Found {
  const main = packageJson('opencode-ai');
  if (!main) return { ok: false, reason: 'opencode-ai is not installed (npm install)' };
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const base = `opencode-${os}-${process.arch}`;
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]) {
    const pkg = packageJson(name);
    if (!pkg) continue;
    const executable = join(dirname(pkg.path), 'bin', os === 'windows' ? 'opencode.exe' : 'opencode');
    if (existsSync(executable)) return { ok: true, binary: { command: [executable], packageName: 'opencode-ai', packageVersion: main.version } };
  }
  return { ok: false, reason: `the OpenCode platform package ${base} is not installed (an optional dependency of opencode-ai)` };
}

/**
 * OpenCode installs `@opencode-ai/plugin` with npm (Arborist, from the registry) into every config
 * folder it reads (`~/.config/opencode`, a project's `.opencode`) when it starts, unless the folder
 * has a node_modules and a package-lock.json whose root lists every dependency (1.18.33's
 * Npm.install; a folder it cannot write is skipped too). A test's folders get what it would
 * install: the package this checkout has, linked, and the lock that says so. Nothing is fetched.
 */
export function seedOpencodeConfigDir(dir: string): void {
  // Its exports name neither ./package.json nor a require condition: found where Node would look.
  const home = (require.resolve.paths('@opencode-ai/plugin') ?? []).map((p) => join(p, '@opencode-ai', 'plugin')).find((p) => existsSync(join(p, 'package.json')));
  if (home === undefined) throw new Error('@opencode-ai/plugin is not installed (npm install): OpenCode would fetch it');
  const version = (JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as { version: string }).version;
  mkdirSync(join(dir, 'node_modules', '@opencode-ai'), { recursive: true });
  const link = join(dir, 'node_modules', '@opencode-ai', 'plugin');
  rmSync(link, { recursive: true, force: true });
  symlinkSync(home, link);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': version } } } }, null, 2)}\n`);
}

/** Where OpenCode keeps its user config in a sandbox (XDG_CONFIG_HOME is the sandbox's). */
export const opencodeConfigDir = (box: Sandbox) => join(box.home, '.config', 'opencode');

/**
 * A user's OpenCode config for offline runs: one provider, OpenCode's bundled
 * `@ai-sdk/openai-compatible` pointed at a chat-completions stand-in, as the default model; a
 * context `limit` makes a large prompt compact.
 */
export function opencodeUserConfig(baseUrl: string, limit?: { context: number; output: number }): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: { standin: { npm: '@ai-sdk/openai-compatible', name: 'Stand-in', options: { baseURL: baseUrl, apiKey: 'offline' }, models: { 'standin-model': { name: 'Stand-in model', ...(limit ? { limit } : {}) } } } },
    model: 'standin/standin-model',
    autoupdate: false,
    share: 'disabled',
  };
}

/**
 * Environment for an OpenCode run in a sandbox: every XDG folder in the sandbox's home (its
 * sessions go to $XDG_DATA_HOME/opencode/opencode.db), no models.dev fetch, no update check, no
 * default plugins. The user config folder is seeded (seedOpencodeConfigDir) so nothing is installed.
 */
export function opencodeEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    TMPDIR: tmpdir(),
    XDG_CONFIG_HOME: join(box.home, '.config'),
    XDG_DATA_HOME: join(box.home, '.local', 'share'),
    XDG_CACHE_HOME: join(box.home, '.cache'),
    XDG_STATE_HOME: join(box.home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    ...extra,
  };
}
