// The BullMQ dashboard (bull-board) at /admin/queues, as an admin page of ours must be: it makes
// no call outside this server (bull-board's page asks Google Fonts for IBM Plex; without it the
// page uses the browser's own sans-serif and monospace fonts), and each job links to its intake's
// page (the intake queue's job id is the intake id, docs/design.md §5). The self-test queue, when
// given, is listed beside it, each job linked to its self-test report (its job id is the report id).
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import { intakeHref } from './intake-page.js';
import { selfTestHref } from './self-test-pages.js';

/** bull-board's <link> to a font stylesheet on another origin, in the page it renders. */
const EXTERNAL_FONTS = /<link\b[^>]*href="https:\/\/fonts\.(?:googleapis|gstatic)\.com[^"]*"[^>]*>\s*/g;

export function withoutExternalFonts(html: string): string {
  return html.replace(EXTERNAL_FONTS, '');
}

/** The dashboard's plugin, to register under `basePath`. */
export function queueDashboard(queue: Queue, basePath: string, selfTestQueue?: Queue): FastifyPluginAsync {
  return async (app) => {
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(basePath);
    const adapter = new BullMQAdapter(queue, {
      externalJobUrl: (job) => ({ href: intakeHref(String(job.id)), displayText: 'intake page' }),
    });
    const selfTests =
      selfTestQueue === undefined
        ? []
        : [
            new BullMQAdapter(selfTestQueue, {
              externalJobUrl: (job) => ({ href: selfTestHref(String(job.id)), displayText: 'self-test report' }),
            }),
          ];
    createBullBoard({ queues: [adapter, ...selfTests], serverAdapter });
    app.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      return typeof payload === 'string' && type.startsWith('text/html') ? withoutExternalFonts(payload) : payload;
    });
    await app.register(serverAdapter.registerPlugin());
  };
}
