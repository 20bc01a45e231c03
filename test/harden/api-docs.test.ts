/**
 * The API reference (typedoc.json, `npm run docs:api`) is a gate, not only a page: every name an
 * entry point exports carries a doc comment, every type a public signature names is exported (or
 * listed as intentionally internal), and TypeDoc treats any warning as an error. Checked three ways:
 * - typedoc.json covers exactly the package's public entry points (tsup's entries minus the CLI),
 *   so a new subpath cannot escape the check;
 * - the same settings fail on a fixture that exports a name without a doc comment (the gate bites);
 * - the project itself passes (`typedoc --emit none` exits 0 with no warning).
 * Sized by count: two TypeDoc runs, with a generous timeout for a shared machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { entries } from '../../tsup.config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const typedoc = join(root, 'node_modules', '.bin', 'typedoc');
const config = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as {
  entryPoints: string[];
  treatWarningsAsErrors: boolean;
  validation: Record<string, boolean>;
  requiredToBeDocumented: string[];
  disableSources?: boolean;
};
const work = mkdtempSync(join(tmpdir(), 'ssk-api-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runTypedoc(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(typedoc, args, { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { status: r.status, out: `${String(r.stdout ?? '')}${String(r.stderr ?? '')}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

describe('API reference (TypeDoc, warnings are errors)', () => {
  it('typedoc.json covers every public entry point of the package and nothing else', () => {
    const publicEntries = Object.entries(entries)
      .filter(([name]) => name !== 'cli')
      .map(([, source]) => source)
      .sort();
    expect([...config.entryPoints].sort()).toEqual(publicEntries);
    expect(config.treatWarningsAsErrors).toBe(true);
    expect(config.validation).toMatchObject({ notExported: true, invalidLink: true, notDocumented: true });
    expect(config.requiredToBeDocumented).toEqual(expect.arrayContaining(['Function', 'Class', 'Interface', 'TypeAlias', 'Variable', 'Enum']));
  });

  it('the same settings fail on an exported name without a doc comment', () => {
    writeFileSync(join(work, 'index.ts'), '/** Documented. */\nexport function documentedThing(): number {\n  return 1;\n}\n\nexport function undocumentedThing(): number {\n  return 2;\n}\n\nexport interface UndocumentedShape {\n  x: number;\n}\n');
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true }, files: ['index.ts'] }));
    const fixtureConfig = {
      name: 'fixture',
      entryPoints: [join(work, 'index.ts')],
      tsconfig: join(work, 'tsconfig.json'),
      treatWarningsAsErrors: config.treatWarningsAsErrors,
      validation: config.validation,
      requiredToBeDocumented: config.requiredToBeDocumented,
      disableSources: config.disableSources,
    };
    writeFileSync(join(work, 'typedoc.json'), JSON.stringify(fixtureConfig));
    const r = runTypedoc(['--options', join(work, 'typedoc.json'), '--emit', 'none']);
    expect(r.status, r.out).not.toBe(0);
    // TypeDoc names a function by its signature (CallSignature) or itself (Function), depending on the release.
    expect(r.out).toMatch(/\bundocumentedThing \((Function|CallSignature)\)[^\n]*does not have any documentation/);
    expect(r.out).toMatch(/\bUndocumentedShape \(Interface\)[^\n]*does not have any documentation/);
    expect(r.out).not.toMatch(/\bdocumentedThing \(/);
  }, 300_000);

  it('every exported name of the package has a doc comment and every referenced type is exported', () => {
    const r = runTypedoc(['--emit', 'none']);
    expect(r.out).not.toMatch(/\[warning\]|\[error\]/);
    expect(r.status, r.out).toBe(0);
  }, 300_000);
});
