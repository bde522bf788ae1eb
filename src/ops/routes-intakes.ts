// Intake lookup and replay for operators (behind the admin login): HTML for browsers, JSON for
// everything else (or with ?format=json).
//   GET  /admin/intakes?state=failed,rejected&limit=50&page=1   newest first; default failed + rejected
//   GET  /admin/intakes?q=<Message-ID | From | intake id | letter id>   search, every state unless ?state=
//   GET  /admin/intakes/:id                               the record, its timeline, letter and notice
//   POST /admin/intakes/:id/replay                        200 queued again | 409 with the reason
//   POST /admin/intakes/replay-failed                     the failed intakes matching errorCode, since, until, sender
//   GET  /admin/intakes/refused?limit=100                  messages refused in the SMTP session, newest first
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { BulkReplayResult, ReplayFilter } from '../intake/bulk-replay.js';
import { parseReplayFilter } from '../intake/bulk-replay.js';
import type { IntakeRecord } from '../intake/record.js';
import type { RefusalCounts } from '../intake/refusal-counts.js';
import { findRefusals, listSamples, type RefusalRecords } from '../intake/refusal-records.js';
import type { ReplayResult } from '../intake/replay.js';
import type { SessionRefusals } from '../intake/session-refusals.js';
import type { IntakeStore } from '../intake/store.js';
import { BULK_REPLAY_PATH, renderBulkReplayResult } from './bulk-replay-page.js';
import { type IntakeCounts, summarizeCounts } from './intake-counts.js';
import { renderIntakeList } from './intake-list-page.js';
import { INTAKES_PATH, renderIntakeDetail, renderNotFound, renderReplayResult } from './intake-page.js';
import { type ListQuery, parseListQuery } from './intake-query.js';
import { rawMessageSection } from './raw-message-section.js';
import {
  countMatchesFilter,
  type ListedRefusal,
  matchesFilter,
  parseRefusalFilter,
  REFUSAL_FILTERS,
  REFUSED_PATH,
  type RefusalFilter,
  renderRefusalList,
} from './refusals-page.js';

export interface IntakeRouteDeps {
  readonly store: IntakeStore;
  readonly replay?: ((intakeId: string) => Promise<ReplayResult>) | undefined;
  /** Milliseconds since the epoch, for the counts' last hour and day. */
  readonly clock: () => number;
  /** The short records of messages refused in the session; no page without them. */
  readonly refusals?: SessionRefusals | undefined;
  /** The record of messages that failed authentication in the session (auth-refusals.ts). */
  readonly authRefusals?: SessionRefusals | undefined;
  /** The raw message and its PDFs can be served (routes-raw.ts): the intake page links them. */
  readonly rawAvailable?: boolean | undefined;
  /** Every refusal counted (refusal-counts.ts), shown above the samples. */
  readonly refusalCounts?: RefusalCounts | undefined;
  /** Re-queues the failed intakes a filter matches; without it there is no bulk replay form. */
  readonly replayFailed?: ((filter: ReplayFilter) => Promise<BulkReplayResult>) | undefined;
}

type Listing = Extract<ListQuery, { ok: true }>;

/** One page of intakes (and whether there is another), from the search or the state indexes. */
async function listPage(store: IntakeStore, query: Listing): Promise<{ records: IntakeRecord[]; more: boolean }> {
  const offset = (query.page - 1) * query.limit;
  let records: IntakeRecord[];
  if (query.q !== undefined) {
    const found = await Promise.all((await store.search.find(query.q)).map((id) => store.get(id)));
    records = found
      .filter((r): r is IntakeRecord => r !== undefined && (!query.explicitStates || query.states.includes(r.state)))
      .sort((a, b) => b.receivedAt - a.receivedAt);
  } else {
    // The newest offset+limit+1 of each state hold the page and say whether another follows.
    const lists = await Promise.all(query.states.map((state) => store.list(state, offset + query.limit + 1)));
    records = lists.flat().sort((a, b) => enteredAt(b) - enteredAt(a));
  }
  const page = records.slice(offset, offset + query.limit + 1);
  return { records: page.slice(0, query.limit), more: page.length > query.limit };
}

async function countsOf(store: IntakeStore, now: number): Promise<IntakeCounts> {
  const [ended, current] = await Promise.all([store.search.endedCounts(now), store.countByState()]);
  return summarizeCounts(ended, current);
}

type Query = Record<string, string | string[] | undefined>;

function wantsHtml(request: FastifyRequest<{ Querystring: Query }>): boolean {
  const format = request.query.format;
  if (format === 'json') return false;
  if (format === 'html') return true;
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Basic auth is sent by the browser on any request to this origin, so a page elsewhere could
 * post the replay form: refuse requests the browser marks cross-site or whose Origin is not us.
 */
function crossSite(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false; // command-line clients send none
  if (origin === 'null') return true; // an opaque origin: sandboxed frame, data: URL
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

export function intakeRoutes(deps: IntakeRouteDeps): FastifyPluginAsync {
  return async (app) => {
    // The replay form posts an empty body, the bulk replay form its filter's fields.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
    });

    const refusalRecords: RefusalRecords | undefined =
      deps.refusals === undefined ? undefined : { rules: deps.refusals, authentication: deps.authRefusals, counts: deps.refusalCounts };

    app.get<{ Querystring: Query }>(INTAKES_PATH, async (request, reply) => {
      const query = parseListQuery(request.query);
      if (!query.ok) return reply.code(400).send({ error: query.error });
      const now = deps.clock();
      const [{ records, more }, counts, refused] = await Promise.all([
        listPage(deps.store, query),
        countsOf(deps.store, now),
        query.q === undefined || refusalRecords === undefined ? undefined : findRefusals(refusalRecords, query.q, now),
      ]);
      if (wantsHtml(request)) {
        const view = {
          ...query,
          records,
          more,
          counts,
          refused,
          canReplay: deps.replay !== undefined,
          canReplayFailed: deps.replayFailed !== undefined,
        };
        return reply.type('text/html; charset=utf-8').send(renderIntakeList(view));
      }
      return {
        states: query.states,
        q: query.q,
        page: query.page,
        more,
        counts,
        intakes: records,
        ...(refused === undefined ? {} : { refused }),
      };
    });

    const refusals = deps.refusals;
    if (refusals !== undefined) {
      app.get<{ Querystring: Query }>(REFUSED_PATH, async (request, reply) => {
        const query = parseListQuery({ limit: request.query.limit });
        if (!query.ok) return reply.code(400).send({ error: query.error });
        const filter = parseRefusalFilter([request.query.check ?? []].flat()[0]);
        if (filter === undefined) return reply.code(400).send({ error: `check must be one of ${REFUSAL_FILTERS.join(', ')}` });
        const now = deps.clock();
        const [list, counts] = await Promise.all([
          listRefusals(refusals, deps.authRefusals, query.limit, now, filter),
          deps.refusalCounts?.list(now).then((all) => all.filter((c) => countMatchesFilter(c, filter))),
        ]);
        if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(renderRefusalList(list, filter, counts));
        return counts === undefined ? { refused: list } : { refused: list, counts };
      });
    }

    app.get<{ Params: { id: string }; Querystring: Query }>(`${INTAKES_PATH}/:id`, async (request, reply) => {
      const intake = await deps.store.get(request.params.id);
      const html = wantsHtml(request);
      if (intake === undefined) {
        return html
          ? reply.code(404).type('text/html; charset=utf-8').send(renderNotFound(request.params.id))
          : reply.code(404).send({ error: `no intake ${request.params.id}` });
      }
      if (html) {
        const message = deps.rawAvailable === true ? rawMessageSection(intake) : '';
        return reply.type('text/html; charset=utf-8').send(renderIntakeDetail(intake, deps.replay !== undefined, message));
      }
      return { intake };
    });

    const replayFailed = deps.replayFailed;
    if (replayFailed !== undefined) {
      app.post<{ Body: Record<string, string> | undefined; Querystring: Query }>(BULK_REPLAY_PATH, async (request, reply) => {
        if (crossSite(request)) return reply.code(403).send({ error: 'cross-site request refused' });
        const parsed = parseReplayFilter(request.body ?? {});
        if (!parsed.ok) return reply.code(400).send({ error: parsed.error });
        const result = await replayFailed(parsed.filter);
        request.log.info(
          {
            event: 'ops.bulk_replay',
            filter: parsed.filter,
            replayed: result.replayed.length,
            refused: result.refused.length,
            more: result.more,
          },
          'failed intakes replayed',
        );
        if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(renderBulkReplayResult(result));
        return result;
      });
    }

    const replay = deps.replay;
    if (replay === undefined) return;
    app.post<{ Params: { id: string }; Querystring: Query }>(`${INTAKES_PATH}/:id/replay`, async (request, reply) => {
      if (crossSite(request)) return reply.code(403).send({ error: 'cross-site request refused' });
      const id = request.params.id;
      const result = await replay(id);
      request.log.info({ event: 'ops.replay', intakeId: id, ok: result.ok }, result.ok ? 'intake replayed' : 'intake replay refused');
      void reply.code(result.ok ? 200 : 409);
      if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(renderReplayResult(id, result));
      return result.ok ? { ok: true, intakeId: id } : { ok: false, intakeId: id, reason: result.reason };
    });
  };
}

/** The newest refusals of both records that pass the filter, newest first. */
async function listRefusals(
  rules: SessionRefusals,
  authentication: SessionRefusals | undefined,
  limit: number,
  now: number,
  filter: RefusalFilter,
): Promise<ListedRefusal[]> {
  const kinds =
    filter === 'all' ? (['rule', 'authentication'] as const) : filter === 'rules' ? (['rule'] as const) : (['authentication'] as const);
  const listed = await listSamples({ rules, authentication }, limit, now, kinds);
  return listed.filter((r) => matchesFilter(r, filter)).slice(0, limit);
}

function enteredAt(record: IntakeRecord): number {
  return record.timeline[record.state] ?? record.receivedAt;
}
