// GET /.well-known/mta-sts.txt (RFC 8461 §3.3): the policy, text/plain, whatever the Host. A
// proxy in front terminates TLS for mta-sts.<domain> and forwards this one path; the rest of the
// ops server stays internal (docs/deploying.md).
import type { FastifyPluginAsync } from 'fastify';
import { MTA_STS_PATH, type MtaStsSettings, mtaStsPolicyText } from '../mta-sts/policy.js';

export function mtaStsRoutes(settings: MtaStsSettings): FastifyPluginAsync {
  const text = mtaStsPolicyText(settings);
  return async (app) => {
    app.get(MTA_STS_PATH, async (_request, reply) =>
      reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'max-age=300').send(text),
    );
  };
}
