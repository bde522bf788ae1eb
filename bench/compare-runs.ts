// The goals of several bench runs side by side, from the JSON each run writes beside its table
// (bench/results/<date>.json): one row per goal, one column per run, and in how many runs the
// goal was met (bench/goals-side-by-side.ts). Each run's goals are judged again from its figures
// by today's goals.ts, so runs from before a goal existed show it too where they measured it.
//
//   npm exec -- tsx bench/compare-runs.ts bench/results/a.json bench/results/b.json ...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { evaluateGoals } from './goals.js';
import { goalsSideBySide } from './goals-side-by-side.js';
import type { BenchResult } from './results.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: tsx bench/compare-runs.ts <run.json>...\n');
  process.exit(64);
}
const runs = files.map((file) => ({
  label: basename(file, '.json'),
  goals: evaluateGoals(JSON.parse(readFileSync(file, 'utf8')) as BenchResult),
}));
process.stdout.write(`${goalsSideBySide(runs).join('\n')}\n`);
