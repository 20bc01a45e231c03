import { createRequire } from 'node:module';
import type { FunctionTool, tool as toolFunction } from '@openai/agents';

/** The SDK's non-strict JSON-schema parameter shape (not exported by name). */
type NonStrictParameters = { type: 'object'; properties: Record<string, never>; required: never[]; additionalProperties: true };
import type { ToolName } from '../../../spec/schemas/tools.js';
import { ValidationError } from '../../core/index.js';
import { createSessionTools, type SessionToolsOptions } from '../../tools/index.js';

export interface SessionFunctionToolsOptions extends SessionToolsOptions {
  /** Only these tools (default: every tool the options offer, T1). */
  only?: readonly ToolName[];
}

const requirePeer = (): unknown => createRequire(import.meta.url)('@openai/agents');

/**
 * The peer's `tool`, loaded when first needed, so importing this entry point without the peer says
 * what to install. `load` is for tests (the peer is installed wherever the tests run).
 */
export function agentsTool(load: () => unknown = requirePeer): typeof toolFunction {
  try {
    return (load() as { tool: typeof toolFunction }).tool;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error('session-state-kit/openai-agents needs its peer @openai/agents: npm install @openai/agents@^0.20.0 (it needs Node 22 or later)', { cause: error });
    }
    throw error;
  }
}

/**
 * T35: the session tools (T1-T7) as function tools of `@openai/agents`, so a model calls them
 * through the SDK's own tool-call path. Each tool's parameters are its JSON Schema (T1); the model
 * reads the tool's text (T3-T7). Arguments that break the schema come back to the model as
 * `Invalid arguments: <field>: <message>` (as T8 answers them) and write nothing; any other failure
 * goes to the SDK's own tool error handling.
 */
export function sessionFunctionTools(options: SessionFunctionToolsOptions): FunctionTool[] {
  const tool = agentsTool();
  const { only, ...toolOptions } = options;
  const tools = createSessionTools(toolOptions);
  return tools.definitions
    .filter((d) => only === undefined || only.includes(d.name))
    .map((d) =>
      tool({
        name: d.name,
        description: d.description,
        // The schema is closed (additionalProperties: false) and has optional fields, so it is not an
        // OpenAI strict schema; the handler checks it exactly (T1).
        parameters: d.inputSchema as unknown as NonStrictParameters,
        strict: false,
        execute: async (args: unknown) => {
          try {
            return (await tools.call(d.name, args)).text;
          } catch (error) {
            if (error instanceof ValidationError) return `Invalid arguments: ${error.message}`;
            throw error;
          }
        },
      }) as unknown as FunctionTool,
    );
}
