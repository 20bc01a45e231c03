import { tool, type FunctionTool } from '@openai/agents';

/** The SDK's non-strict JSON-schema parameter shape (not exported by name). */
type NonStrictParameters = { type: 'object'; properties: Record<string, never>; required: never[]; additionalProperties: true };
import type { ToolName } from '../../../spec/schemas/tools.js';
import { ValidationError } from '../../core/index.js';
import { createSessionTools, type SessionToolsOptions } from '../../tools/index.js';

export interface SessionFunctionToolsOptions extends SessionToolsOptions {
  /** Only these tools (default: every tool the options offer, T1). */
  only?: readonly ToolName[];
}

/**
 * T35: the session tools (T1-T7) as function tools of `@openai/agents`, so a model calls them
 * through the SDK's own tool-call path. Each tool's parameters are its JSON Schema (T1); the model
 * reads the tool's text (T3-T7). Arguments that break the schema come back to the model as
 * `Invalid arguments: <field>: <message>` (as T8 answers them) and write nothing; any other failure
 * goes to the SDK's own tool error handling.
 */
export function sessionFunctionTools(options: SessionFunctionToolsOptions): FunctionTool[] {
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
