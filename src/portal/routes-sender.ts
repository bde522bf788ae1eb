// What a sender sees: its intakes (search by subject, Message-ID, date), one intake, its letters
// with the status the Sender API shows now, its registered addresses, and what the contract says
// of invoices. Every read is scoped to the signed-in user's sender (sender-intakes.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Sender } from '../senders/directory.js';
import { field, html, type PortalContext, type SignedIn, viewerOf } from './context.js';
import { esc, isoTime } from './html.js';
import { channelWords, intakeDetail } from './intake-view.js';

const DAY_MS = 24 * 3600 * 1000;

function dayStart(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(at) ? undefined : at;
}

export function senderRoutes(ctx: PortalContext, full: (request: FastifyRequest) => SignedIn) {
  const senderOf = (who: SignedIn): Sender | undefined => who.sender;
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/portal/intakes', async (request, reply) => {
      const who = full(request);
      const sender = senderOf(who);
      const q = field(request.query, 'q').trim().slice(0, 998);
      const from = field(request.query, 'from');
      const to = field(request.query, 'to');
      const toStart = dayStart(to);
      const records =
        sender === undefined
          ? []
          : await ctx.intakes.list(sender, { q, fromMs: dayStart(from), toMs: toStart === undefined ? undefined : toStart + DAY_MS - 1 });
      const rows = records
        .map(
          (r) =>
            `<tr><td><a href="/portal/intakes/${encodeURIComponent(r.intakeId)}">${esc(r.intakeId)}</a></td><td>${isoTime(r.receivedAt)}</td><td>${esc(r.subject)}</td><td>${esc(r.state)}${r.reasonCode === undefined ? '' : ` <code>${esc(r.reasonCode)}</code>`}</td><td>${esc(channelWords(r))}</td></tr>`,
        )
        .join('');
      return html(
        reply,
        200,
        'Your intakes',
        `<p>Everything your registered addresses e-mailed to the gateway, and the letters uploaded here, newest first.</p>
<form method="get" action="/portal/intakes" class="search">
<label for="q">Subject word or Message-ID</label><input id="q" name="q" type="text" value="${esc(q)}">
<label for="from">Received from (date)</label><input id="from" name="from" type="date" value="${esc(from)}">
<label for="to">Received until (date)</label><input id="to" name="to" type="date" value="${esc(to)}">
<button type="submit">Search</button></form>
<table class="intakes"><thead><tr><th scope="col">Intake</th><th scope="col">Received (UTC)</th><th scope="col">Subject</th><th scope="col">State</th><th scope="col">How</th></tr></thead><tbody>${rows}</tbody></table>
${records.length === 0 ? '<p>No intakes match.</p>' : ''}`,
        viewerOf(ctx, request, reply),
      );
    });

    app.get<{ Params: { id: string } }>('/portal/intakes/:id', async (request, reply) => {
      const who = full(request);
      const sender = senderOf(who);
      const record = sender === undefined ? undefined : await ctx.intakes.get(sender, request.params.id);
      if (record === undefined || sender === undefined) {
        return html(reply, 404, 'No such intake', '<p>There is no intake with this id among yours.</p>', viewerOf(ctx, request, reply));
      }
      const statuses = record.letterId === undefined ? new Map<string, string>() : await ctx.letterStatus(sender, [record.letterId]);
      return html(
        reply,
        200,
        `Intake ${record.intakeId}`,
        intakeDetail(record, record.letterId === undefined ? undefined : statuses.get(record.letterId)),
        viewerOf(ctx, request, reply),
      );
    });

    app.get('/portal/letters', async (request, reply) => {
      const who = full(request);
      const sender = senderOf(who);
      const records =
        sender === undefined
          ? []
          : (await ctx.intakes.list(sender, { q: undefined, fromMs: undefined, toMs: undefined })).filter((r) => r.letterId !== undefined);
      const ids = records.flatMap((r) => (r.letterId === undefined ? [] : [r.letterId]));
      const statuses = sender === undefined ? new Map<string, string>() : await ctx.letterStatus(sender, ids);
      const rows = records
        .map((r) => {
          const now = r.letterId === undefined ? undefined : statuses.get(r.letterId);
          return `<tr><td>${esc(r.letterId)}</td><td>${esc(r.subject)}</td><td class="status">${esc(now ?? `${r.letterStatus ?? 'PendingApproval'} (when made; not known now)`)}</td><td><a href="/portal/intakes/${encodeURIComponent(r.intakeId)}">${esc(r.intakeId)}</a></td><td>${isoTime(r.timeline.submitted)}</td></tr>`;
        })
        .join('');
      return html(
        reply,
        200,
        'Your letters',
        `<p>The letters the gateway made for you (from e-mail and from uploads), with the status the Sender API shows now.</p>
<p><a href="/portal/letters/new">Upload a letter</a></p>
<table class="letters"><thead><tr><th scope="col">Letter</th><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Intake</th><th scope="col">Made (UTC)</th></tr></thead><tbody>${rows}</tbody></table>
${records.length === 0 ? '<p>No letters yet.</p>' : ''}`,
        viewerOf(ctx, request, reply),
      );
    });

    app.get('/portal/addresses', async (request, reply) => {
      const sender = senderOf(full(request));
      const items = (sender?.addresses ?? []).map((a) => `<li><code>${esc(a)}</code></li>`).join('');
      return html(
        reply,
        200,
        'Your sending addresses',
        `<p>Letters are accepted by e-mail from these addresses (signed with DKIM, passing SPF). Your gateway's operator changes them.</p><ul class="addresses">${items}</ul>`,
        viewerOf(ctx, request, reply),
      );
    });

    app.get('/portal/invoices', async (request, reply) =>
      html(
        reply,
        200,
        'Invoices',
        '<p class="note">The Sender Service Interface describes viewing invoices in its web client, but it offers no way to list them: an invoice can be read only by an id already known. So this portal cannot show your invoices; ask your account manager for them.</p>',
        viewerOf(ctx, request, reply),
      ),
    );
  };
}
