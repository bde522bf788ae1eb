// The self-test reports (behind the admin login): HTML for browsers, JSON for everything else.
//   GET /admin/self-tests        the newest first
//   GET /admin/self-tests/:id    one report
import type { FastifyPluginAsync } from 'fastify';
import type { SelfTestReports } from '../intake/self-test-reports.js';
import { page } from './html.js';
import { renderSelfTestList, renderSelfTestReport, SELF_TESTS_PATH } from './self-test-pages.js';

const LISTED = 100;

export function selfTestRoutes(reports: SelfTestReports): FastifyPluginAsync {
  return async (app) => {
    const html = (accept: string | undefined) => (accept ?? '').includes('text/html');
    app.get(SELF_TESTS_PATH, async (request, reply) => {
      const list = await reports.list(LISTED);
      if (html(request.headers.accept)) return reply.type('text/html; charset=utf-8').send(renderSelfTestList(list));
      return { selfTests: list };
    });
    app.get<{ Params: { id: string } }>(`${SELF_TESTS_PATH}/:id`, async (request, reply) => {
      const report = await reports.get(request.params.id);
      const wantsHtml = html(request.headers.accept);
      if (report === undefined) {
        void reply.code(404);
        return wantsHtml
          ? reply.type('text/html; charset=utf-8').send(page('No such self-test', '<p>No such self-test (kept a week).</p>'))
          : { error: 'no such self-test' };
      }
      return wantsHtml ? reply.type('text/html; charset=utf-8').send(renderSelfTestReport(report)) : { selfTest: report };
    });
  };
}
