// The goals of several bench runs side by side, from the JSON each run writes beside its table
// (bench/results/<date>.json): one row per goal, one column per run, and in how many runs the
// goal was met.
//
//   npm exec -- tsx bench/compare-runs.ts bench/results/a.json bench/results/b.json ...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { BenchResult, Goal } from './results.js';

function goalsOf(file: string): readonly Goal[] {
  const result = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
  return result.goals;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: tsx bench/compare-runs.ts <run.json>...\n');
  process.exit(64);
}
const runs = files.map(goalsOf);
const names = [...new Set(runs.flatMap((goals) => goals.map((g) => g.name)))];
const mark = (met: boolean | undefined): string => (met === undefined ? '–' : met ? '✅' : '❌');

const lines = [
  `| Goal | Target | ${files.map((f) => basename(f, '.json')).join(' | ')} | Met |`,
  `|---|---|${files.map(() => '---|').join('')}---|`,
  ...names.map((name) => {
    const cells = runs.map((goals) => goals.find((g) => g.name === name));
    const judged = cells.filter((c) => c?.met !== undefined);
    const met = judged.filter((c) => c?.met === true).length;
    const target = cells.find((c) => c !== undefined)?.target ?? '';
    const measured = cells.map((c) => (c === undefined ? '–' : `${c.measured} ${mark(c.met)}`));
    return `| ${name} | ${target} | ${measured.join(' | ')} | ${met} of ${judged.length} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
