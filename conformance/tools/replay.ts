/**
 * Tool vectors (PROTOCOL.md section 12; format ToolVector in spec/schemas/tools.ts): a store script
 * and tool calls with the exact structured result and text the reference produced. Replaying one
 * needs only a store factory, so a runtime in any language can check its tool texts byte for byte.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { ToolVector, type SessionStateStore, type StoreFactory, type ToolVectorCall } from '../../spec/index.js';
import { annotateSessionsList, createSessionTools, type SessionToolsOptions } from '../../src/tools/index.js';

const check = Compile(ToolVector);

export function toolVectorsDir(): string {
  return fileURLToPath(new URL('./vectors/', import.meta.url));
}

export function loadToolVectors(dir = toolVectorsDir()): ToolVector[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const v: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      if (!check.Check(v)) {
        const [first] = check.Errors(v);
        throw new Error(`${file} is not a valid tool vector${first ? `: ${first.instancePath} ${first.message}` : ''}`);
      }
      return v;
    });
}

export type ToolExpectation = ToolVectorCall['expect'];

/** JSON with object keys sorted and undefined dropped: results compare as JSON values (key order is irrelevant). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

type Binding = Pick<ToolVector, 'defaultAgentId' | 'caller' | 'visibility'>;

async function runCall(store: SessionStateStore, binding: Binding, call: Pick<ToolVectorCall, 'tool' | 'args'>): Promise<ToolExpectation> {
  const options: SessionToolsOptions = {
    store,
    ...(binding.defaultAgentId !== undefined ? { defaultAgentId: binding.defaultAgentId } : {}),
    ...(binding.caller !== undefined ? { caller: binding.caller } : {}),
    ...(binding.visibility !== undefined ? { visibility: binding.visibility } : {}),
  };
  try {
    if (call.tool === 'record') return { ok: true, result: (await store.record(call.args as never))?.sequence ?? null };
    const tools = createSessionTools(options);
    // T4: the vector's rows stand for the runtime's own list; T11: a bound list shows only the caller's scope.
    const out =
      call.tool === 'sessions_list'
        ? await annotateSessionsList(
            { store, ...(options.defaultAgentId !== undefined ? { defaultAgentId: options.defaultAgentId } : {}), ...(tools.caller !== undefined ? { caller: tools.caller } : {}) },
            (call.args as { rows: { sessionKey: string }[] }).rows,
          )
        : await tools.call(call.tool, call.args);
    return { ok: true, result: JSON.parse(JSON.stringify(out.result)) as unknown, text: out.text };
  } catch (error) {
    const e = error as { name?: unknown; field?: unknown; message?: unknown };
    const name = typeof e.name === 'string' ? e.name : 'Error';
    // T11: a refusal's text is what the model reads, so it is held byte for byte.
    const message = name === 'ForbiddenError' && typeof e.message === 'string' ? { message: e.message } : {};
    return { ok: false, error: typeof e.field === 'string' ? { name, field: e.field, ...message } : { name } };
  }
}

export interface ToolVectorMismatch {
  call: number;
  tool: string;
  expected: ToolExpectation;
  actual: ToolExpectation;
}

/** Replays calls against a fresh store; returns the outcomes (for the generator) and the mismatches (for checkers). */
export async function replayToolVector(
  v: Pick<ToolVector, 'startAt' | 'calls'> & Binding,
  factory: StoreFactory,
): Promise<{ outcomes: ToolExpectation[]; mismatches: ToolVectorMismatch[] }> {
  let now = v.startAt;
  const store = await factory({ now: () => now });
  const outcomes: ToolExpectation[] = [];
  const mismatches: ToolVectorMismatch[] = [];
  try {
    for (const [i, call] of v.calls.entries()) {
      now = call.now;
      const actual = await runCall(store, v, call);
      outcomes.push(actual);
      if (call.expect !== undefined && canonical(actual) !== canonical(call.expect)) mismatches.push({ call: i, tool: call.tool, expected: call.expect, actual });
    }
  } finally {
    await store.close();
  }
  return { outcomes, mismatches };
}
