/**
 * session-state-kit/opencode: OpenCode as a participant (PROTOCOL.md T61-T64). `init opencode`
 * writes a plugin file that imports this module from this copy of the kit by absolute path and
 * calls `sessionStatePlugin({ db })`; OpenCode loads it into its own process.
 */
export {
  nextPartId,
  sessionStatePlugin,
  type OpencodeClientLike,
  type OpencodeHooksLike,
  type OpencodePartLike,
  type OpencodePluginInputLike,
  type OpencodePluginLike,
  type SessionStatePluginOptions,
} from './plugin.js';
export { OPENCODE_AGENT, opencodeDedupeSpace, opencodeEventMeaning, type OpencodeEvent, type OpencodeEventMeaning } from './events.js';
export type { HookStore } from '../hook-apply.js';
