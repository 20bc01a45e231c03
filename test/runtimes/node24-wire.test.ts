/**
 * W1 on Node 24, the current LTS: its readline ends a line at U+2028/U+2029, so a wire server
 * framing on readline cut the hostile-key vector's requests in two and timed out. The stdio server
 * runs here under Node 24 (runtimes/node_modules/node24) and must replay every fixed vector (W7).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { execFactory } from '../../conformance/exec.js';
import { loadVectors, runVector } from '../../conformance/vectors.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NODE24 = join(root, 'runtimes', 'node_modules', 'node24', 'bin', 'node');
const present = existsSync(NODE24);
const SKIP_REASON = 'runtimes/node_modules is absent: run `npm ci --prefix runtimes` to get Node 24';
if (!present) console.warn(`Node 24 wire test skipped: ${SKIP_REASON}`);

describe.skipIf(!present)(`the wire protocol on Node 24${present ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  const f = execFactory(`"${NODE24}" --import tsx conformance/stdio-server.ts --store memory`, { cwd: root, timeoutMs: 20_000 });
  afterAll(() => f.dispose());

  it('runs on Node 24 and replays every vector, the hostile keys (U+2028, U+2029) included', async () => {
    const hello = await f.hello();
    expect(hello.implementation).toBe('session-state-kit memory');
    const vectors = loadVectors();
    expect(vectors.map((v) => v.name)).toContain('r01-r23-hostile-keys');
    const runs = [];
    for (const v of vectors) runs.push(await runVector(f, v));
    expect(runs.filter((r) => r.failure)).toEqual([]);
  }, 180_000);

  it('the server runs on Node 24 and refuses a U+2028 key by name (R1), not by a framing timeout', async () => {
    expect(spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v24\./);
    const s = await f({ now: () => 0 });
    await expect(Promise.resolve(s.stateVersion('agent:main:a\u2028b', 'main'))).rejects.toMatchObject({ name: 'ValidationError', field: 'sessionKey' });
    await s.close();
  });
});
