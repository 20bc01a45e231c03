/** Writes conformance/upstream/vectors/*.json. Run: npx tsx conformance/upstream/generate-vectors.ts */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTranscripts } from './transcripts.js';
import { buildUpstreamVectors, serializeVectors } from './vectors.js';

const dir = join(import.meta.dirname, 'vectors');
mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(serializeVectors(buildUpstreamVectors()))) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote ${join('conformance/upstream/vectors', name)}`);
}
mkdirSync(join(dir, 'transcripts'), { recursive: true });
for (const [name, text] of Object.entries(buildTranscripts().files)) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote ${join('conformance/upstream/vectors', name)}`);
}
