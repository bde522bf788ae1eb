// The bulk replay form on the failed-intakes page and the page that answers it. Pure markup.
import type { BulkReplayResult } from '../intake/bulk-replay.js';
import { escapeHtml, page } from './html.js';
import { INTAKES_PATH, intakeHref } from './intake-page.js';

export const BULK_REPLAY_PATH = `${INTAKES_PATH}/replay-failed`;

/** Every field may stay empty ("any"); the times are ISO 8601, as the page shows them. */
export function bulkReplayForm(): string {
  return `<form class="bulk-replay" method="post" action="${BULK_REPLAY_PATH}">
<fieldset><legend>Replay every failed intake that matches</legend>
<label>error code <input name="errorCode" placeholder="HTTP503" size="18"></label>
<label>failed since <input name="since" placeholder="2026-11-25T14:00:00Z" size="22"></label>
<label>until <input name="until" placeholder="2026-11-25T16:00:00Z" size="22"></label>
<label>sender <input name="sender" placeholder="sender id or From address" size="26"></label>
<button type="submit">replay matching</button>
</fieldset>
</form>`;
}

export function renderBulkReplayResult(result: BulkReplayResult): string {
  const count = result.replayed.length;
  const refused = result.refused.map(
    (r) => `<li><a href="${escapeHtml(intakeHref(r.intakeId))}">${escapeHtml(r.intakeId)}</a>: ${escapeHtml(r.reason)}</li>`,
  );
  return page(
    'Bulk replay',
    `<p>${count} intake${count === 1 ? '' : 's'} queued again.</p>
${result.more ? '<p>More failed intakes match than one replay takes: submit the form again for the rest.</p>' : ''}
${refused.length === 0 ? '' : `<p>Refused:</p><ul>${refused.join('\n')}</ul>`}
<p><a href="${INTAKES_PATH}?state=failed">back to the failed intakes</a></p>`,
  );
}
