// Renumbers citations of docs/design.md sections ("docs/design.md §N", "design §N", "§N of the
// design", and the "§N" chained after one: "§N, §M", "§N.1–§N.5") from the numbering before the
// sections were put in the order a message lives to the numbering after it. A "§N" after an RFC,
// a PDF or ZIP specification or the Sender API contract is left alone; one it cannot place is listed
// for a reader to judge and left alone too.
//
//   node scripts/renumber-design-refs.mjs            rewrite every tracked text file but docs/design.md and this one
//   node scripts/renumber-design-refs.mjs --check    change nothing: list what would change, exit 1 if anything would
//   node scripts/renumber-design-refs.mjs --unplaced list the "§N" it cannot place
//   node scripts/renumber-design-refs.mjs FILE...    only these files
//
// It applies once: on a tree whose docs/design.md still has the old order (a branch made before the
// reorder), before merging it with one that has the new. It refuses a tree whose design is already
// in the new order, where a second pass would move every number again (--force overrides, e.g. for a
// patch file written against the old numbers). Plain JavaScript with no import of ours.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** Old section number → new. §1 and §2 (with §2.1–§2.7) keep theirs. */
const OLD_TO_NEW = new Map([
  [1, 1],
  [2, 2],
  [3, 9],
  [4, 21],
  [5, 14],
  [6, 23],
  [7, 22],
  [8, 3],
  [9, 5],
  [10, 6],
  [11, 11],
  [12, 7],
  [13, 10],
  [14, 12],
  [15, 4],
  [16, 8],
  [17, 15],
  [18, 16],
  [19, 17],
  [20, 18],
  [21, 13],
  [22, 19],
  [23, 20],
]);

const DESIGN = 'docs/design.md';
const SELF = 'scripts/renumber-design-refs.mjs';
/** The heading §3 has in the new order; in the old it was "Talking to the Sender API". */
const NEW_ORDER_MARK = /^## 3\. Decisions in the SMTP session/m;

const SECTION = /§(\d+)((?:\.\d+)*)/g;
/** What a design citation ends with just before its "§N": "design.md", "design", "(design.md)", "[…](…/design.md)". */
const AFTER_DESIGN = /design(?:\.md)?\)?\s*(?:\/\/|#|\*)?\s*$/i;
const BEFORE_OF_DESIGN = /^[^\S\n]*of the design\b/;
/** Other documents' sections: RFCs, ISO 32000-1, PKWARE's APPNOTE, the PNG spec, the Sender API contract. */
const AFTER_FOREIGN = /(?:RFC[\s-]?\d+|32000-1|APPNOTE(?:\.TXT)?|PNG spec|contract's|the contract)[\s,]*(?:\/\/|#|\*)?\s*$/i;
const BEFORE_OF_FOREIGN = /^[^\S\n]*of (?:the contract|RFC)\b/;
/** What may stand between two "§N" of one citation: "§3, §13", "§2.1–§2.5", "§2.4 and §2.6". */
const CHAIN = /^(?:\.\d+)?[\s,–\-/]*(?:and|or|&)?\s*$/;

/**
 * Every "§N" of the text with what it is: 'design', 'foreign', or 'unplaced'. In docs/design.md
 * itself a bare "§N" is the design's own.
 */
function citations(text, { inDesign = false } = {}) {
  const found = [];
  let previousEnd = -1;
  let previousKind;
  for (const match of text.matchAll(SECTION)) {
    const start = match.index;
    const end = start + match[0].length;
    const between = previousEnd < 0 ? undefined : text.slice(previousEnd, start);
    const before = text.slice(Math.max(0, start - 80), start);
    const after = text.slice(end, end + 40);
    let kind;
    if (between !== undefined && previousKind !== undefined && between.length <= 12 && CHAIN.test(between)) kind = previousKind;
    else if (AFTER_FOREIGN.test(before) || BEFORE_OF_FOREIGN.test(after)) kind = 'foreign';
    else if (AFTER_DESIGN.test(before) || BEFORE_OF_DESIGN.test(after)) kind = 'design';
    else kind = inDesign ? 'design' : 'unplaced';
    found.push({ start, end, major: Number(match[1]), minor: match[2], kind });
    previousEnd = end;
    previousKind = kind;
  }
  return found;
}

/** The text with every design citation renumbered, and the changes made ("§21 → §13"). */
function renumber(text, options = {}) {
  const changes = [];
  let out = '';
  let at = 0;
  for (const c of citations(text, options)) {
    if (c.kind !== 'design') continue;
    const to = OLD_TO_NEW.get(c.major);
    if (to === undefined) throw new Error(`§${c.major} at offset ${c.start} names no section of the old design`);
    out += `${text.slice(at, c.start)}§${to}${c.minor}`;
    at = c.end;
    if (to !== c.major) changes.push({ offset: c.start, from: `§${c.major}${c.minor}`, to: `§${to}${c.minor}` });
  }
  return { text: out + text.slice(at), changes };
}

function lineOf(text, offset) {
  return text.slice(0, offset).split('\n').length;
}

function trackedTextFiles() {
  const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
  return files.filter((f) => {
    if (f === DESIGN || f === SELF) return false;
    const bytes = readFileSync(f);
    return !bytes.includes(0) && bytes.includes('§');
  });
}

function main(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const named = argv.filter((a) => !a.startsWith('--'));
  const files = named.length > 0 ? named : trackedTextFiles();
  const inNewOrder = NEW_ORDER_MARK.test(readFileSync(DESIGN, 'utf8'));
  if (flags.has('--unplaced')) {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const c of citations(text, { inDesign: file === DESIGN })) {
        if (c.kind !== 'unplaced') continue;
        const line = text.split('\n')[lineOf(text, c.start) - 1] ?? '';
        console.log(`${file}:${lineOf(text, c.start)}: ${line.trim().slice(0, 160)}`);
      }
    }
    return 0;
  }
  const check = flags.has('--check');
  if (inNewOrder && !flags.has('--force')) {
    console.error(`${DESIGN} is already in the new order: its citations were renumbered with it. --force renumbers again.`);
    return 2;
  }
  let changed = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const result = renumber(text, { inDesign: file === DESIGN });
    for (const change of result.changes) console.log(`${file}:${lineOf(text, change.offset)}: ${change.from} → ${change.to}`);
    if (result.changes.length === 0) continue;
    changed += result.changes.length;
    if (!check) writeFileSync(file, result.text);
  }
  console.log(`${changed} citation(s) ${check ? 'would change' : 'changed'}`);
  return check && changed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
