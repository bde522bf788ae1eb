// The folders of src/ depend on each other in one direction: the listener and the worker share
// what lies below them (mime, pdf, the bounded wait) and never reach into each other, and a type
// lives with the folder that owns it. Each rule names the folder that may not import another.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

interface Import {
  /** The importing file, relative to src/ ("worker/message-split.ts"). */
  readonly file: string;
  /** A package name as written, or a src/ path for a relative import ("smtp/mime-walk.js"). */
  readonly target: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(path: string): Import[] {
  const file = relative(SRC, path);
  return [...readFileSync(path, 'utf8').matchAll(IMPORT)].flatMap((match) => {
    const written = match[1] ?? match[2];
    if (written === undefined) return [];
    const target = written.startsWith('.') ? relative(SRC, resolve(dirname(path), written)) : written;
    return [{ file, target }];
  });
}

const IMPORTS = sourceFiles(SRC).flatMap(importsOf);

const folderOf = (path: string): string => path.split('/')[0] ?? '';

/** [importing folder, imported folder or file, why not] */
const FORBIDDEN: readonly (readonly [string, string, string])[] = [
  ['worker', 'smtp', 'the worker does not reach into the listener'],
  ['smtp', 'worker', 'the listener does not reach into the worker'],
  ['intake', 'smtp', 'intake records serve the listener and the worker alike (the worker uses intake/)'],
  ['mime', 'smtp', 'the MIME walk lies below the listener and the worker'],
  ['mime', 'worker', 'the MIME walk lies below the listener and the worker'],
  ['pdf', 'worker', 'the PDF checks serve the worker, not the other way round'],
  ['raw-store', 'intake', 'the raw store knows nothing of intake records'],
  ['senders', 'intake', 'the sender directory knows nothing of intake records'],
  ['smtp', 'ops', 'the listener does not depend on the ops server'],
  ['doctor', 'ops', 'the doctor does not depend on the ops server'],
  ['portal', 'ops', 'the sender portal faces the internet and never imports the ops pages'],
  ['portal', 'worker', 'an upload reaches the worker through the queue, as an e-mail does'],
  ['ops', 'portal', 'the ops server knows nothing of the sender portal'],
];

describe('imports between the folders of src/', () => {
  it('finds the imports it checks (the scan reads the source)', () => {
    expect(IMPORTS).toContainEqual({ file: 'worker/message-split.ts', target: 'mime/mime-walk.js' });
  });

  it.each(FORBIDDEN)('nothing in src/%s imports src/%s (%s)', (from, to) => {
    const wrong = IMPORTS.filter((i) => folderOf(i.file) === from && i.target.includes('/') && folderOf(i.target) === to);
    expect(wrong).toEqual([]);
  });

  it('imports mailauth/lib/ (its private modules) only in src/fast-paths', () => {
    const users = IMPORTS.filter((i) => i.target.startsWith('mailauth/lib/'));
    expect(users.map((i) => folderOf(i.file))).toContain('fast-paths');
    expect(users.filter((i) => folderOf(i.file) !== 'fast-paths')).toEqual([]);
  });

  it('imports src/fast-paths only through its index.ts outside the boundary', () => {
    const wrong = IMPORTS.filter(
      (i) => folderOf(i.file) !== 'fast-paths' && folderOf(i.target) === 'fast-paths' && i.target !== 'fast-paths/index.js',
    );
    expect(wrong).toEqual([]);
  });
});
