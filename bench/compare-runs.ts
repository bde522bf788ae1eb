// The goals of several bench runs side by side, from the JSON each run writes beside its table
// (bench/results/<date>.json): one row per goal, one column per run, and in how many runs the
// goal was met (bench/goals-side-by-side.ts). A run shows the goals it was judged by when it ran,
// and besides them each goal today's goals.ts judges that it has no row for (a goal added since,
// judged from the run's own figures where it measured them).
//
//   npm exec -- tsx bench/compare-runs.ts bench/results/a.json bench/results/b.json ...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { evaluateGoals } from './goals.js';
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
  return [...run.goals, ...evaluateGoals(run).filter((g) => !judged.has(g.name) && g.met !== undefined)];
}
