// The sender's self-tests on the portal (docs/portal.md): what the messages its addresses sent to
// the self-test address found, the report text the same as the admin pages and the mailed report.
//   GET /portal/self-tests        the newest first
//   GET /portal/self-tests/:id    one report (404 for another sender's)
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { reportLines, reportSummary } from '../intake/self-test-text.js';
import { html, type PortalContext, type SignedIn, viewerOf } from './context.js';
import { esc, isoTime } from './html.js';

export const PORTAL_SELF_TESTS_PATH = '/portal/self-tests';

export function selfTestRoutes(ctx: PortalContext, full: (request: FastifyRequest) => SignedIn) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(PORTAL_SELF_TESTS_PATH, async (request, reply) => {
      const who = full(request);
      const viewer = viewerOf(ctx, request, reply);
      if (ctx.selfTests === undefined) {
        return html(reply, 200, 'Your self-tests', '<p>This gateway has no self-test address.</p>', viewer);
      }
      const reports = who.sender === undefined ? [] : await ctx.selfTests.list(who.sender);
      const rows = reports
        .map(
          (r) =>
            `<tr><td><a href="${PORTAL_SELF_TESTS_PATH}/${encodeURIComponent(r.id)}">${esc(r.id)}</a></td><td>${isoTime(r.at)}</td><td>${esc(r.outcome)}</td><td>${esc(r.from)}${r.outcome === 'pass' ? '' : '<br><small>claimed From (not authenticated)</small>'}</td><td>${esc(reportSummary(r))}</td></tr>`,
        )
        .join('');
      return html(
        reply,
        200,
        'Your self-tests',
        `<p>Messages from your registered addresses to the self-test address, kept a week: every check as for a letter, never a letter. A failed one shows the From it claimed, which anyone can forge.</p>
<table class="intakes"><thead><tr><th scope="col">Self-test</th><th scope="col">Received (UTC)</th><th scope="col">Outcome</th><th scope="col">From</th><th scope="col">Summary</th></tr></thead><tbody>${rows}</tbody></table>
${reports.length === 0 ? '<p>No self-test from your addresses this week.</p>' : ''}`,
        viewer,
      );
    });

    app.get<{ Params: { id: string } }>(`${PORTAL_SELF_TESTS_PATH}/:id`, async (request, reply) => {
      const who = full(request);
      const viewer = viewerOf(ctx, request, reply);
      const report =
        who.sender === undefined || ctx.selfTests === undefined ? undefined : await ctx.selfTests.get(who.sender, request.params.id);
      if (report === undefined) {
        return html(
          reply,
          404,
          'No such self-test',
          '<p>There is no self-test with this id among yours (they are kept a week).</p>',
          viewer,
        );
      }
      return html(
        reply,
        200,
        `Self-test ${report.id}`,
        `<p><a href="${PORTAL_SELF_TESTS_PATH}">all your self-tests</a></p>\n<pre class="report">${esc(reportLines(report).join('\n'))}</pre>`,
        viewer,
      );
    });
  };
}
