import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpencodePartLike } from '../../src/integrations/opencode/index.js';

/** The recorded OpenCode payloads (test/hook/opencode-payloads) the plugin's in-process tests share. */
export const fixture = <T = Record<string, unknown>>(name: string): T => JSON.parse(readFileSync(join(import.meta.dirname, 'opencode-payloads', `${name}.json`), 'utf8')) as T;
export type EventPayload = { event: { id: string; type: string; properties: Record<string, unknown> } };
export type ChatPayload = { input: { sessionID: string }; output: { message: { id: string; sessionID: string }; parts: OpencodePartLike[] } };
/** The recorded person's prompt, its session, and that session's key. */
export const PROMPT = fixture<ChatPayload>('chat-message');
export const SESSION_ID = PROMPT.input.sessionID;
export const KEY = `agent:opencode:${SESSION_ID}`;
/** Another runtime's session the OpenCode session watches. */
export const LEAD = 'agent:claude-code:lead';
export const T0 = 1_767_225_600_000;
/** A fresh copy of the recorded prompt as another message of its session (its id plus `suffix`). */
export const prompt = (suffix = ''): ChatPayload => {
  const p = structuredClone(PROMPT);
  p.output.message.id += suffix;
  return p;
};
