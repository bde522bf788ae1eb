// The ops server's landing page at `/`: links to the admin pages (behind the login) and the
// probes, so an operator who opens the bare address finds their way instead of a JSON 404.
import type { FastifyPluginAsync } from 'fastify';
import { CONTENT_SECURITY_POLICY } from './content-security.js';
import { escapeHtml, page } from './html.js';

const LINKS: readonly (readonly [string, string])[] = [
  ['/admin/intakes', 'intake pages: the latest intakes, search by Message-ID or From (login)'],
  ['/admin/intakes/refused', 'refused in the SMTP session: every refusal counted, and samples (login)'],
  ['/admin/self-tests', "self-tests: senders' test messages and their reports (login)"],
  ['/admin/queues', 'queue dashboard (login)'],
  ['/healthz', 'liveness probe'],
  ['/readyz', 'readiness probe: Redis, queue, raw store, Sender API'],
  ['/metrics', 'Prometheus metrics'],
];

export function renderLanding(adminServed: boolean): string {
  const items = LINKS.filter(([href]) => adminServed || !href.startsWith('/admin')).map(
    ([href, text]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(href)}</a>: ${escapeHtml(text)}</li>`,
  );
  const note = adminServed ? '' : '<p>The admin pages are not served: DASHBOARD_PASSWORD is not set.</p>';
  return page('letter-intake', `${note}<ul>\n${items.join('\n')}\n</ul>`);
}

export function landingRoute(adminServed: boolean): FastifyPluginAsync {
  return async (app) => {
    app.get('/', async (_request, reply) =>
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY).type('text/html; charset=utf-8').send(renderLanding(adminServed)),
    );
  };
}
