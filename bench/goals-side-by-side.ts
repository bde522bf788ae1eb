// The goals of several runs as one markdown table: one row per goal, one column per run, and in
// how many of the runs that judged it the goal was met. Rows follow the run with the most goals
// (the newest, usually), then any goal only older runs have; a run from before a goal existed
// (the peer goals, say) shows – in that row and does not count.
import type { Goal } from './results.js';

export interface RunGoals {
  readonly label: string;
  readonly goals: readonly Goal[];
}

export function goalsSideBySide(runs: readonly RunGoals[]): string[] {
  const fullest = runs.reduce<RunGoals | undefined>(
    (best, run) => (best === undefined || run.goals.length > best.goals.length ? run : best),
    undefined,
  );
  const names = [...new Set([...(fullest?.goals ?? []), ...runs.flatMap((run) => run.goals)].map((g) => g.name))];
  return [
    `| Goal | Target | ${runs.map((run) => run.label).join(' | ')} | Met |`,
    `|---|---|${runs.map(() => '---|').join('')}---|`,
    ...names.map((name) => {
      const cells = runs.map((run) => run.goals.find((g) => g.name === name));
      const judged = cells.filter((c) => c?.met !== undefined);
      const met = judged.filter((c) => c?.met === true).length;
      const target = cells.find((c) => c !== undefined)?.target ?? '';
      const measured = cells.map((c) => (c === undefined ? '–' : `${c.measured} ${mark(c.met)}`));
      return `| ${name} | ${target} | ${measured.join(' | ')} | ${met} of ${judged.length} |`;
    }),
  ];
}

const mark = (met: boolean | undefined): string => (met === undefined ? '–' : met ? '✅' : '❌');
