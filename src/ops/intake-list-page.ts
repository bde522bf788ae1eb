// The intake list page: counts at the top, a search box (Message-ID, From, intake id, letter
// id), one page of intakes and links to the pages around it. A pure function of its view.
import type { IntakeRecord, IntakeState } from '../intake/record.js';
import type { RefusalFinding } from '../intake/refusal-records.js';
import { bulkReplayForm } from './bulk-replay-page.js';
import { escapeHtml, isoTime, page } from './html.js';
import type { IntakeCounts } from './intake-counts.js';
import { INTAKES_PATH, intakeHref, outcomeOf, replayForm } from './intake-page.js';
import { refusalMatches } from './refusal-matches.js';

export interface ListView {
  readonly states: readonly IntakeState[];
  readonly explicitStates: boolean;
  readonly q: string | undefined;
  readonly page: number;
  readonly limit: number;
  readonly records: readonly IntakeRecord[];
  /** Is there a next page? */
  readonly more: boolean;
  readonly counts: IntakeCounts;
  readonly canReplay: boolean;
  /** Offer the bulk replay form (failed intakes listed, and the route served). */
  readonly canReplayFailed?: boolean;
  /** For a search: the refusals in the session it finds (never intakes). */
  readonly refused?: RefusalFinding | undefined;
}

/** The list of one state's intakes, newest first. */
const stateHref = (state: IntakeState): string => `${INTAKES_PATH}?state=${state}`;
const link = (href: string, text: string | number): string => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
/** A count; one that is not zero links to the intakes it counts (of its state: the newest first). */
const cell = (value: number | undefined, href: string): string =>
  `<td class="num">${value === undefined ? '' : value === 0 ? '0' : link(href, value)}</td>`;

function countsTables(counts: IntakeCounts): string {
  const states = counts.byState.map((c) => {
    const href = stateHref(c.state);
    return `<tr><th>${link(href, c.state)}</th>${cell(c.lastHour, href)}${cell(c.lastDay, href)}${cell(c.now, href)}</tr>`;
  });
  const reasons = counts.byReason.map((c) => {
    const href = stateHref(c.state);
    return `<tr><td>${escapeHtml(c.state)}</td><td>${link(href, c.reason)}</td>${cell(c.lastHour, href)}${cell(c.lastDay, href)}</tr>`;
  });
  return `<div class="counts">
<table class="by-state">
<thead><tr><th>state</th><th>last hour</th><th>last day</th><th>now</th></tr></thead>
<tbody>
${states.join('\n')}
</tbody>
</table>
<table class="by-reason">
<thead><tr><th>state</th><th>reason</th><th>last hour</th><th>last day</th></tr></thead>
<tbody>
${reasons.length === 0 ? '<tr><td colspan="4">none in the last day</td></tr>' : reasons.join('\n')}
</tbody>
</table>
</div>`;
}

function searchForm(q: string | undefined): string {
  return `<form class="search" method="get" action="${INTAKES_PATH}">
<input type="search" name="q" value="${escapeHtml(q ?? '')}" placeholder="Message-ID, From, intake id or letter id" size="50" aria-label="search">
<button type="submit">search</button>
</form>`;
}

function pageHref(view: ListView, pageNumber: number): string {
  const params = new URLSearchParams();
  if (view.q !== undefined) params.set('q', view.q);
  if (view.explicitStates) params.set('state', view.states.join(','));
  params.set('limit', String(view.limit));
  params.set('page', String(pageNumber));
  return `${INTAKES_PATH}?${params.toString()}`;
}

function pager(view: ListView): string {
  const links = [
    view.page > 1 ? `<a rel="prev" href="${escapeHtml(pageHref(view, view.page - 1))}">← newer</a>` : '',
    `<span>page ${view.page}</span>`,
    view.more ? `<a rel="next" href="${escapeHtml(pageHref(view, view.page + 1))}">older →</a>` : '',
  ];
  return `<p class="pager">${links.filter((l) => l !== '').join(' ')}</p>`;
}

export function renderIntakeList(view: ListView): string {
  const rows = view.records.map(
    (r) => `<tr>
<td><a href="${escapeHtml(intakeHref(r.intakeId))}">${escapeHtml(r.intakeId)}</a></td>
<td>${escapeHtml(r.state)}</td>
<td>${escapeHtml(isoTime(r.timeline[r.state]))}</td>
<td>${escapeHtml(r.from)}</td>
<td>${escapeHtml(r.subject)}</td>
<td>${escapeHtml(outcomeOf(r))}</td>
<td>${view.canReplay && r.state === 'failed' ? replayForm(r.intakeId) : ''}</td>
</tr>`,
  );
  const empty =
    view.q !== undefined ? `No intake matches ${view.q}.` : view.explicitStates ? 'No intakes in these states.' : 'No intakes yet.';
  const table =
    view.records.length === 0
      ? `<p>${escapeHtml(empty)}</p>`
      : `<table class="intakes">
<thead><tr><th>intake</th><th>state</th><th>since</th><th>from</th><th>subject</th><th>letter id / reason</th><th></th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  const title =
    view.q !== undefined ? `Intakes matching ${view.q}` : view.explicitStates ? `Intakes: ${view.states.join(', ')}` : 'Latest intakes';
  const bulk = view.canReplayFailed === true && view.states.includes('failed') ? `${bulkReplayForm()}\n` : '';
  const refused = view.q === undefined ? '' : refusalMatches(view.refused, view.q);
  return page(title, `${countsTables(view.counts)}\n${searchForm(view.q)}\n${bulk}${table}\n${refused}${pager(view)}`);
}
