import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { liveBinariesOff } from '../agents/binaries.js';

/**
 * T40: Codex's own hook schemas, read out of the pinned binary. `@openai/codex` 0.171.0 compiles
 * the JSON Schemas (draft-07) of every command hook's input and output into its executable, titled
 * `<event>.command.input` / `.command.output`; the kit's fixtures and outputs are checked against
 * exactly those, so a Codex bump that changes a shape fails here, naming the schema.
 */
const require = createRequire(import.meta.url);
const SCHEMA_START = '{\n  "$schema": "http://json-schema.org/draft-07/schema#",';

export interface CodexBinary {
  version: string;
  path: string;
}

/** The pinned Codex binary of this platform, or the reason it is not there. */
export function codexBinary(): CodexBinary | string {
  if (liveBinariesOff()) return 'SSK_AGENT_BINARIES=off: the checks against the Codex binary are skipped';
  try {
    const main = require.resolve('@openai/codex/package.json');
    const version = (JSON.parse(readFileSync(main, 'utf8')) as { version: string }).version;
    const platform = `@openai/codex-${process.platform}-${process.arch}`;
    const pkg = require.resolve(`${platform}/package.json`);
    const triple = process.arch === 'x64' ? 'x86_64-unknown-linux-musl' : 'aarch64-unknown-linux-musl';
    return { version, path: join(dirname(pkg), 'vendor', triple, 'bin', 'codex') };
  } catch (error) {
    return `the Codex binary is not installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
}

/** Every titled JSON Schema in the binary, by title. */
export function codexHookSchemas(binaryPath: string): Map<string, Record<string, unknown>> {
  const text = readFileSync(binaryPath).toString('latin1');
  const found = new Map<string, Record<string, unknown>>();
  for (let at = text.indexOf(SCHEMA_START); at >= 0; at = text.indexOf(SCHEMA_START, at + 1)) {
    let depth = 0;
    let inString = false;
    let end = at;
    for (; end < text.length; end++) {
      const c = text[end];
      if (inString) {
        if (c === '\\') end++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    try {
      const schema = JSON.parse(text.slice(at, end + 1)) as Record<string, unknown>;
      if (typeof schema['title'] === 'string') found.set(schema['title'], schema);
    } catch {
      // Not every brace run in a binary is a schema; only whole JSON texts count.
    }
  }
  return found;
}

/** `UserPromptSubmit` → `user-prompt-submit`. */
export function schemaName(hookEvent: string): string {
  return hookEvent.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '-') + c.toLowerCase());
}
