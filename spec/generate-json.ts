/**
 * Writes spec/json/*.json from the TypeBox schemas, so implementers in other languages can
 * validate against plain JSON Schema. `--check` exits 1 when the committed files drift.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as spec from './index.js';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, 'json');

export function jsonSchemas(): Record<string, unknown> {
  const payloads: Record<string, unknown> = {};
  for (const [kind, schema] of Object.entries(spec.PAYLOAD_SCHEMAS)) payloads[kind] = schema ?? false;
  return {
    'actor-type.json': spec.ActorType,
    'event-kind.json': spec.EventKindSchema,
    'notify-class.json': { $comment: 'PROTOCOL.md R10', const: spec.NOTIFY_CLASS },
    'payloads.json': { $comment: 'PROTOCOL.md R4: per-kind payload schema; false = no payload allowed', properties: payloads, required: [...spec.PAYLOAD_REQUIRED] },
    'record-input.json': spec.RecordInput,
    'record-inputs.json': spec.RecordInputs,
    'state-event.json': spec.StateEvent,
    'watch-cursor.json': spec.WatchCursor,
    'watch-request.json': spec.WatchRequest,
    'watch-result.json': spec.WatchResult,
    'unwatch-request.json': spec.UnwatchRequest,
    'unwatch-result.json': spec.UnwatchResult,
    'notice-acks.json': spec.NoticeAcks,
    'session-head.json': spec.SessionHead,
    'notice.json': spec.Notice,
    'changes-since-request.json': spec.ChangesSinceRequest,
    'changes-since-response.json': spec.ChangesSinceResponse,
    'limits.json': { $comment: 'spec/schemas/limits.ts', const: spec.LIMITS },
    'excluded-code-points.json': {
      $comment: 'PROTOCOL.md R1/R3: code points a session key (sessionKey) or an opaque id, actorId aside, and summary (opaqueIdAndSummary) must not hold, as inclusive [first, last] ranges (Unicode 17.0). Lone surrogates are refused besides.',
      const: spec.EXCLUDED_CODE_POINTS,
    },
    'wire-request.json': spec.WireRequest,
    'wire-response.json': spec.WireResponse,
    'wire-hello.json': spec.WireHello,
    'conformance-vector.json': spec.ConformanceVector,
    // PROTOCOL.md section 11: the agent tools' arguments and results, and the tool vectors.
    'tool-session-status-args.json': spec.SessionStatusArgs,
    'tool-session-status-result.json': spec.SessionStatusResult,
    'tool-sessions-list-args.json': spec.SessionsListArgs,
    'tool-sessions-list-result.json': spec.SessionsListResult,
    'tool-session-watch-args.json': spec.SessionWatchArgs,
    'tool-session-watch-result.json': spec.SessionWatchResult,
    'tool-session-unwatch-args.json': spec.SessionUnwatchArgs,
    'tool-session-unwatch-result.json': spec.SessionUnwatchResult,
    'tool-session-notices-args.json': spec.SessionNoticesArgs,
    'tool-session-notices-result.json': spec.SessionNoticesResult,
    'tool-vector.json': spec.ToolVector,
  };
}

export function render(schema: unknown): string {
  return JSON.stringify(schema, null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let drift = 0;
  mkdirSync(outDir, { recursive: true });
  for (const [name, schema] of Object.entries(jsonSchemas())) {
    const path = join(outDir, name);
    const text = render(schema);
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        console.error(`drift: spec/json/${name} differs from the TypeBox source (run npm run spec:json)`);
        drift++;
      }
    } else {
      writeFileSync(path, text);
    }
  }
  if (check && drift > 0) process.exit(1);
  console.log(check ? 'spec/json is up to date' : `wrote ${Object.keys(jsonSchemas()).length} files to spec/json`);
}
