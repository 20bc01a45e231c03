/**
 * session-state-kit/conformance: run the suite against any implementation of the contract
 * (spec/schemas/contract.ts), in-process or, through the wire protocol, in any language.
 *
 *   import { runConformance, formatReport } from 'session-state-kit/conformance';
 *   const result = await runConformance(createMyStore, { runs: 50 });
 *   console.log(formatReport(result));
 *
 * Multi-handle mode: pass `{ create, openHandle }` (another handle on the same backing store) and
 * the model-based properties spread their commands over `handles` (default 3) handles.
 *
 * @module session-state-kit/conformance
 */
export {
  runConformance,
  formatReport,
  listProperties,
  selectProperties,
  randomSeed,
  type ConformanceOptions,
  type ConformanceProgress,
  type ConformanceResult,
  type PropertyResult,
  type PropertyFailure,
} from './runner.js';
export { PROPERTIES, type ArbitraryOptions, type ConformanceProperty, type PropertyContext } from './properties/index.js';
export { MEMORY_HANDLES, DEFAULT_HANDLES, asHandleFactory, type ConformanceTarget, type HandleFactory, type OpenHandle } from './handles.js';
export { loadVectors, runVector, vectorsDir, type VectorRun } from './vectors.js';
export { formatScript, formatCommand, T0, type Command, type Scenario, type ScenarioOptions, type Outcome } from './script.js';
export type { ScriptOp } from './script.js';
export { execFactory, RemoteError, type ExecFactory, type ExecOptions } from './exec.js';
export { serveWire } from './wire-server.js';
export type { ServeWireOptions, WireQuirk, WireSharing, WireStreams } from './wire-server.js';
export { loadFactory } from './load.js';
export { resolveTarget, probeHandles, BUILTIN_TARGETS, UnknownTargetError, type TargetKind, type TargetName, type ResolveOptions, type ResolvedTarget } from './targets.js';
export { runWireCases, type WireCaseResult } from './wire-cases.js';

/**
 * The OpenClaw target (docs/openclaw.md): `session-state-kit conformance --target openclaw`'s own
 * options and report. Loaded on first use: it installs and runs OpenClaw's shipped code.
 */
export async function openClawCommand(argv: readonly string[], io: { out: (line: string) => void; err: (text: string) => void }): Promise<number> {
  return (await import('./openclaw/command.js')).openClawCommand(argv, io);
}
