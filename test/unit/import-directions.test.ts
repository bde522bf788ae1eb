// The folders of src/ (and its top-level files) stand in ranked layers, and imports run one way:
// down. A folder imports only from layers below its own, and from its own layer only where
// SAME_LAYER names the pair; every folder has its place in LAYERS, so a new one is placed on
// purpose (docs/design.md §22). Every kind of import counts: `import`, `import type`,
// `export … from`, a bare `import '…'`, and `import()`, whatever the depth of `../`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The tree checked: src/ (IMPORT_DIRECTIONS_SRC names another, e.g. an older checkout, to compare). */
const SRC = resolve(process.env.IMPORT_DIRECTIONS_SRC ?? resolve(import.meta.dirname, '../../src'));

/**
 * Lowest first. A folder's name stands for the folder; a top-level file's name without its
 * ending stands for the file (`config` is src/config.ts). Every name is one of src/, and the
 * layout of docs/design.md shows the same layers (both checked below).
 */
const LAYERS: readonly (readonly string[])[] = [
  // 0 words every part may use: types, logging, the bounded wait, the error vocabulary, the environment's type
  ['types', 'log', 'log-terminal', 'bounded', 'errors', 'config-env', 'config-renames', 'nearest-name'],
  // 1 leaves with no domain: ports and network helpers, shared vocabulary, reloadable files,
  // clients of outside daemons (clamd)
  ['net', 'words', 'support', 'scan'],
  // 2 the boundary that replaces dependency internals (only its index.ts is imported from outside),
  // and settings the stores read as well as config
  ['fast-paths', 'privacy-settings'],
  // 3 storage and message mechanics
  ['redis', 'raw-store', 'mime', 'policy', 'auth'],
  // 4 the one environment schema
  ['config'],
  // 5 the domain records and directories
  ['intake', 'senders', 'sender-api', 'mta-sts', 'config-unknown'],
  // 6 what happens to an intake's outcome, and the PDF checks
  ['notices', 'pdf'],
  // 7 the parts a role runs: the listener, the worker, the ops server, the sender portal, …
  ['smtp', 'worker', 'ops', 'doctor', 'sandbox', 'recover', 'portal'],
  // 8 composition: roles, parts, commands
  ['runtime'],
  // 9 the command line
  ['cli'],
];

/** [importer, imported, why]: the imports allowed between two members of one layer. */
const SAME_LAYER: readonly (readonly [string, string, string])[] = [
  ['portal', 'smtp', "an upload is judged by the session's own message rules (smtp/session-rules.ts)"],
  ['intake', 'senders', "an intake is counted against its sender's limits (senders/tenant-settings.ts)"],
  ['senders', 'sender-api', "a sender's own senderApiUrl follows SENDER_API_URL's rule (sender-api/base-url.ts)"],
  ['ops', 'worker', "the intake page shows a stored message's PDFs with the worker's own parse and PDF verdicts"],
];

interface Import {
  /** The importing file, relative to src/ ("worker/message-split.ts"). */
  readonly file: string;
  /** A package name as written, or a src/ path for a relative import ("mime/mime-walk.js"). */
  readonly target: string;
  /** Written as a relative path: an import of src/ (or beyond it). */
  readonly local: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

function importsOf(path: string): Import[] {
  const file = relative(SRC, path);
  return [...readFileSync(path, 'utf8').matchAll(IMPORT)].flatMap((match) => {
    const written = match[1] ?? match[2] ?? match[3];
    if (written === undefined) return [];
    const target = written.startsWith('.') ? relative(SRC, resolve(dirname(path), written)) : written;
    return [{ file, target, local: written.startsWith('.') }];
  });
}

const IMPORTS = sourceFiles(SRC).flatMap(importsOf);
const RELATIVE = IMPORTS.filter((i) => i.local && !i.target.startsWith('..'));

const folderOf = (path: string): string => path.split('/')[0] ?? '';
/** The unit a path belongs to: its folder, or for a top-level file its name without the ending. */
const unitOf = (path: string): string => (path.includes('/') ? folderOf(path) : path.replace(/\.(ts|mts|mjs|js)$/, ''));
const layerOf = (unit: string): number => LAYERS.findIndex((layer) => layer.includes(unit));

const UNITS = [...new Set(sourceFiles(SRC).map((path) => unitOf(relative(SRC, path))))].sort();

const DESIGN = resolve(import.meta.dirname, '../../docs/design.md');

/**
 * The layers the design's layout shows, lowest first: in its `src/` block a line "  N name/" (or
 * "  N name.ts") opens layer N, and each "    name/" under it joins it.
 */
function designLayers(): string[][] {
  const text = readFileSync(DESIGN, 'utf8');
  const block = /^## \d+\. A layout that shows the flow\n[\s\S]*?^```\nsrc\/\n([\s\S]*?)^\S/m.exec(text)?.[1] ?? '';
  const layers: string[][] = [];
  let current: string[] | undefined;
  for (const line of block.split('\n')) {
    const opens = /^ {2}(\d+) (\S+?)(?:\/|\.ts)\s/.exec(line);
    const joins = /^ {4}(\S+?)(?:\/|\.ts)\s/.exec(line);
    if (opens?.[1] !== undefined && opens[2] !== undefined) {
      current = [opens[2]];
      layers[Number(opens[1])] = current;
    } else if (joins?.[1] !== undefined && current !== undefined) {
      current.push(joins[1]);
    }
  }
  return [...layers].map((layer) => [...(layer ?? [])].sort());
}

/** Where an unplaced unit belongs: the lowest layer above everything it imports. */
function placeFor(unit: string): string {
  const imports = [...new Set(RELATIVE.filter((i) => unitOf(i.file) === unit).map((i) => unitOf(i.target)))].filter((u) => u !== unit);
  const importedBy = [...new Set(RELATIVE.filter((i) => unitOf(i.target) === unit).map((i) => unitOf(i.file)))].filter((u) => u !== unit);
  const lowest = Math.max(0, ...imports.map((u) => layerOf(u) + 1));
  const layer = LAYERS[lowest];
  const where = layer === undefined ? 'a new last layer' : `layer ${lowest} (${layer.join(' ')})`;
  return `src/${unit} has no layer: add '${unit}' to LAYERS in test/unit/import-directions.test.ts, in ${where}; it imports [${imports.join(' ')}], is imported by [${importedBy.join(' ')}]`;
}

/** Every import that runs up, or sideways without a SAME_LAYER entry, as "from → to: file imports target". */
function wrongImports(): string[] {
  return RELATIVE.flatMap((i) => {
    const from = unitOf(i.file);
    const to = unitOf(i.target);
    if (from === to) return [];
    const [a, b] = [layerOf(from), layerOf(to)];
    if (a < 0 || b < 0) return []; // unplaced: its own test names it
    if (a > b) return [];
    if (a === b && SAME_LAYER.some(([x, y]) => x === from && y === to)) return [];
    const how = a === b ? `both in layer ${a}, not allowed in SAME_LAYER` : `layer ${a} imports layer ${b}`;
    return [`${from} → ${to} (${how}): ${i.file} imports ${i.target}`];
  });
}

describe('imports between the folders of src/', () => {
  it('finds the imports it checks (the scan reads every kind of import)', () => {
    expect(IMPORTS).toContainEqual({ file: 'worker/message-split.ts', target: 'mime/mime-walk.js', local: true });
    const kinds = [
      "import type { A } from '../../x/a.js'",
      "export { B } from './b.js'",
      "const c = await import('../c.js')",
      "import '../d.js'",
      "import {\n  e,\n  f,\n} from '../../../e.js'",
    ].join('\n');
    expect([...kinds.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3])).toEqual([
      '../../x/a.js',
      './b.js',
      '../c.js',
      '../d.js',
      '../../../e.js',
    ]);
  });

  it('places every folder and top-level file of src/ in one layer', () => {
    const twice = LAYERS.flat().filter((unit, i, all) => all.indexOf(unit) !== i);
    expect(twice, 'a name stands in one layer only').toEqual([]);
    expect(UNITS.filter((unit) => layerOf(unit) < 0).map(placeFor)).toEqual([]);
  });

  it('names in LAYERS only folders and top-level files src/ has', () => {
    expect(LAYERS.flat().filter((unit) => !UNITS.includes(unit))).toEqual([]);
  });

  it('shows in the layout of docs/design.md the layers LAYERS holds, name for name', () => {
    expect(designLayers()).toEqual(LAYERS.map((layer) => [...layer].sort()));
  });

  it('imports only from lower layers, or from its own where SAME_LAYER allows it', () => {
    expect(wrongImports()).toEqual([]);
  });

  it('keeps SAME_LAYER to pairs of one layer', () => {
    expect(SAME_LAYER.filter(([a, b]) => layerOf(a) !== layerOf(b) || layerOf(a) < 0)).toEqual([]);
  });

  it('keeps raw-store/ free of intake/ (code needing both lives in intake/ or above)', () => {
    expect(RELATIVE.filter((i) => folderOf(i.file) === 'raw-store' && unitOf(i.target) === 'intake')).toEqual([]);
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
