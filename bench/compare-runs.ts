// The goals of several bench runs side by side, from the JSON each run writes beside its table
// (bench/results/<date>.json): one row per goal, one column per run, and in how many runs the
// goal was met (bench/goals-side-by-side.ts). A run shows the goals it was judged by when it ran,
// and the goals added since that its own figures judge (goals.ts, goalsAddedLater); a goal since
// renamed keeps its old name in that run's column.
//
//   npm exec -- tsx bench/compare-runs.ts bench/results/a.json bench/results/b.json ...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { goalsAddedLater } from './goals.js';
import { goalsSideBySide } from './goals-side-by-side.js';
import type { BenchResult, Goal } from './results.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: tsx bench/compare-runs.ts <run.json>...\n');
  process.exit(64);
}
const runs = files.map((file) => ({
  label: basename(file, '.json'),
  goals: withLaterGoals(JSON.parse(readFileSync(file, 'utf8')) as BenchResult),
}));
process.stdout.write(`${goalsSideBySide(runs).join('\n')}\n`);

function withLaterGoals(run: BenchResult): readonly Goal[] {
  const judged = new Set(run.goals.map((g) => g.name));
  return [...run.goals, ...goalsAddedLater(run).filter((g) => !judged.has(g.name) && g.met !== undefined)];
}
