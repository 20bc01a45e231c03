/**
 * The JSONL transcript source's own refusals and answers on the file system (U6): the path it
 * needs, its scan bound, what counts as missing (and what is only inconclusive), and a marker it
 * did not make.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClaudeJsonlSource, transcriptPath } from '../../src/upstream/index.js';
import { line, tempDir, writeLines } from './helpers.js';

const dir = tempDir('ssk-jsonl-host-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const target = (filePath: unknown) => ({ hostId: 'gateway:local', threadId: 't', ref: { filePath } as never });

describe('U6: the JSONL source on the file system', () => {
  it('ref.filePath must be a non-empty string', () => {
    for (const bad of [undefined, '', 7, null]) expect(() => transcriptPath(target(bad)), String(bad)).toThrow('ref.filePath must be a non-empty string');
    expect(transcriptPath(target('/a.jsonl'))).toBe('/a.jsonl');
  });

  it('scanMaxBytes must be a positive integer', () => {
    for (const bad of [0, -5, 1.5, Number.NaN]) expect(() => createClaudeJsonlSource({ scanMaxBytes: bad }), String(bad)).toThrow(new RangeError('scanMaxBytes must be a positive integer'));
    expect(createClaudeJsonlSource({ scanMaxBytes: 1 }).kind).toBe('claude-jsonl');
  });

  it('a file that is gone, or is a directory, is missing with the reason; a baseline of it fails saying so', async () => {
    const source = createClaudeJsonlSource();
    const path = join(dir, 's1.jsonl');
    writeLines(path, [line.human('hello')]);
    const marker = await source.baseline(target(path));
    const folder = join(dir, 'folder.jsonl');
    mkdirSync(folder);
    expect(await source.check({ ...target(folder), marker })).toMatchObject({ status: 'missing', detail: 'not a regular file' });
    expect(await source.check({ ...target(join(dir, 'gone.jsonl')), marker })).toMatchObject({ status: 'missing', detail: 'ENOENT' });
    expect(await source.check({ ...target(join(path, 'under-a-file.jsonl')), marker })).toMatchObject({ status: 'missing', detail: 'ENOTDIR' });
    await expect(source.baseline(target(folder))).rejects.toThrow('upstream transcript not found (not a regular file)');
    await expect(source.baseline(target(join(dir, 'gone.jsonl')))).rejects.toThrow('upstream transcript not found (ENOENT)');
  });

  it('a marker it did not make is inconclusive, saying so', async () => {
    const source = createClaudeJsonlSource();
    for (const marker of ['x', { offset: 'a' }, null]) {
      expect(await source.check({ ...target(join(dir, 's1.jsonl')), marker: marker as never })).toEqual({ status: 'inconclusive', detail: 'stored marker is not a JSONL byte cursor' });
    }
  });
});
