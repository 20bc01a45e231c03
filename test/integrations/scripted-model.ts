import { Usage, type AgentInputItem, type Model, type ModelProvider, type ModelRequest, type ModelResponse } from '@openai/agents';

/**
 * A model of the `@openai/agents` Model interface that returns fixed outputs: each call hands the
 * request to a script, which answers with output items. No network; the SDK's Runner does the rest
 * (tool calls, agents as tools, handoffs) exactly as with a real model.
 */
export type Output = ModelResponse['output'][number];
export type Script = (request: ModelRequest, call: number) => Output[] | Promise<Output[]>;

export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: Script) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = await this.script(request, this.requests.length);
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedModel does not stream');
  }
}

export class ScriptedProvider implements ModelProvider {
  /** Models by the name an Agent's `model` gives; a test may add them after the Runner was built. */
  constructor(readonly models: Record<string, Model> = {}) {}
  getModel(name?: string): Model {
    const model = name === undefined ? undefined : this.models[name];
    if (model === undefined) throw new Error(`no scripted model named ${String(name)}`);
    return model;
  }
}

export const say = (text: string): Output => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }) as Output;
export const callTool = (callId: string, name: string, args: unknown): Output => ({ type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' }) as Output;

/** The input items of a request (a string input is one user message). */
export function items(request: ModelRequest): AgentInputItem[] {
  return typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
}
/** The output of the last tool call result in the input, as text. */
export function lastToolOutput(request: ModelRequest, name?: string): string | undefined {
  const results = items(request).filter((i) => (i as { type?: string }).type === 'function_call_result' && (name === undefined || (i as { name?: string }).name === name));
  const last = results[results.length - 1] as { output?: unknown } | undefined;
  if (last === undefined) return undefined;
  const out = last.output as { type?: string; text?: string } | string;
  return typeof out === 'string' ? out : (out?.text ?? JSON.stringify(out));
}
/** Every text of the system and user messages in the input. */
export function inputTexts(request: ModelRequest): string[] {
  const texts: string[] = [];
  if (request.systemInstructions) texts.push(request.systemInstructions);
  for (const item of items(request)) {
    const i = item as { role?: string; content?: unknown };
    if (i.role !== 'system' && i.role !== 'user') continue;
    if (typeof i.content === 'string') texts.push(i.content);
    else if (Array.isArray(i.content)) for (const c of i.content as { text?: string }[]) if (typeof c.text === 'string') texts.push(c.text);
  }
  return texts;
}
