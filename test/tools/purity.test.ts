import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// session-state-kit/tools runs wherever a store does (a browser extension, an edge worker, Bun):
// the tools bundle with no Node built-in and nothing but typebox outside it.
describe('T1 tools are host-free', () => {
  it('T1 src/tools bundles for a neutral platform with no node: import', async () => {
    const result = await build({
      entryPoints: [join(import.meta.dirname, '../../src/tools/index.ts')],
      bundle: true,
      platform: 'neutral',
      format: 'esm',
      write: false,
      metafile: true,
      external: ['typebox', 'typebox/*'],
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(imports.filter((p) => !p.startsWith('typebox'))).toEqual([]);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s+["']node:/);
  });
});
