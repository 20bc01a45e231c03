/**
 * session-state-kit/conformance: run the suite against any implementation of the contract
 * (spec/schemas/contract.ts), in-process or, through the wire protocol, in any language.
 *
 *   import { runConformance, formatReport } from 'session-state-kit/conformance';
 *   const result = await runConformance(createMyStore, { runs: 50 });
 *   console.log(formatReport(result));
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
export { PROPERTIES, type ConformanceProperty, type PropertyContext } from './properties/index.js';
export { loadVectors, runVector, vectorsDir, type VectorRun } from './vectors.js';
export { formatScript, formatCommand, T0, type Command, type Scenario, type ScenarioOptions, type Outcome } from './script.js';
export { execFactory, RemoteError, type ExecFactory, type ExecOptions } from './exec.js';
export { serveWire } from './wire-server.js';
export { loadFactory } from './load.js';
