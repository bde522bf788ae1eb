// The doctor's one printer: the checklist grouped by area, ✓ / ! / ✗ and one line each, then a
// summary line.
import type { CheckResult, CheckStatus } from './result.js';

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

export function formatChecklist(results: readonly CheckResult[]): string {
  const areas = [...new Set(results.map((r) => r.area))];
  const lines: string[] = [];
  for (const area of areas) {
    lines.push(area);
    for (const r of results.filter((x) => x.area === area)) lines.push(`  ${MARK[r.status]} ${r.name}: ${r.detail}`);
  }
  const count = (status: CheckStatus): number => results.filter((r) => r.status === status).length;
  lines.push('', `${count('ok')} ok, ${count('warn')} warnings, ${count('fail')} failed`);
  return `${lines.join('\n')}\n`;
}
