// Each sender's limits, counted in real Redis with a test clock: a sliding hour of messages and
// bytes, and the intakes not yet ended; a re-delivery and a released count take nothing. Then
// through a listener: the 451 4.7.1 a sender's MTA hears, naming the limit and when there is room.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntakeError } from '../../src/errors.js';
import { intakeKeys } from '../../src/intake/keys.js';
import { LIMIT_WINDOW_MS, type LimitedSender, SenderLimiter } from '../../src/intake/sender-limits.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { senderViews } from '../../src/ops/sender-views.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import type { SenderLimits } from '../../src/senders/tenant-settings.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

const redis = connectTestRedis();
const prefixes: string[] = [];
const START = Date.parse('2026-11-27T10:00:00Z');

afterAll(async () => {
  for (const prefix of prefixes) await dropPrefix(redis, prefix);
  redis.disconnect();
});

function limiterFor(limits: SenderLimits): { limiter: SenderLimiter; clock: { now: number }; prefix: string } {
  const prefix = randomPrefix();
  prefixes.push(prefix);
  const clock = { now: START };
  const sender: LimitedSender = { senderId: 'acme', name: 'Acme', limits };
  const limiter = new SenderLimiter({
    redis,
    prefix,
    clock: () => clock.now,
    senderOf: (from) => (from === 'letters@acme.example' ? sender : undefined),
    admittedGraceMs: 60_000,
    openLifetimeMs: 7 * 24 * 3600_000,
  });
  return { limiter, clock, prefix };
}

const intake = (n: number, sizeBytes = 100) => ({ intakeId: `in-${n}`, from: 'letters@acme.example', sizeBytes });

async function refusal(promise: Promise<unknown>): Promise<IntakeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof IntakeError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

describe('messagesPerHour', () => {
  it('refuses past the limit over a sliding hour, naming it and when there is room', async () => {
    const { limiter, clock } = limiterFor({ messagesPerHour: 2 });
    await limiter.admit(intake(1));
    clock.now += 10 * 60_000;
    await limiter.admit(intake(2));
    const err = await refusal(limiter.admit(intake(3)));
    expect(err.smtp).toEqual({ code: 451, enhanced: '4.7.1' });
    expect(err.message).toBe(
      "the sender's limit of 2 messages per hour (messagesPerHour) is reached; there is room again at 2026-11-27T11:00:00Z",
    );
    clock.now = START + LIMIT_WINDOW_MS + 1; // the first has left the window
    expect((await limiter.admit(intake(3))).kind).toBe('admitted');
  });

  it('counts a retried intake once, a re-delivery of a recorded one and a released count not at all', async () => {
    const { limiter, prefix } = limiterFor({ messagesPerHour: 2 });
    await limiter.admit(intake(1));
    await limiter.admit(intake(1)); // the same message after a 451
    await redis.hset(intakeKeys(prefix).record('in-7'), 'state', 'submitted');
    expect((await limiter.admit(intake(7))).kind).toBe('redelivery');
    const released = await limiter.admit(intake(2));
    await limiter.release(released);
    expect(await limiter.use('acme')).toEqual({ messages: 1, bytes: 100, open: 1 });
    expect((await limiter.admit(intake(3))).kind).toBe('admitted');
  });

  it('keeps the count when a second delivery of the same message, under way at once, is taken back', async () => {
    const { limiter } = limiterFor({ messagesPerHour: 1 });
    const first = await limiter.admit(intake(1));
    const second = await limiter.admit(intake(1)); // another MX, or the retry while the first still writes
    expect([first.kind, second.kind]).toEqual(['admitted', 'counted']);
    await limiter.release(second); // the second finds the first's record: a re-delivery after all
    expect(await limiter.use('acme')).toEqual({ messages: 1, bytes: 100, open: 1 });
    await refusal(limiter.admit(intake(2)));
  });

  it('leaves a sender without limits uncounted', async () => {
    const { limiter, prefix } = limiterFor({ messagesPerHour: 1 });
    expect((await limiter.admit({ intakeId: 'x', from: 'letters@globex.example', sizeBytes: 1 })).kind).toBe('unlimited');
    expect(await redis.keys(`${prefix}:sender:*`)).toEqual([]);
  });
});

describe('bytesPerHour', () => {
  it('refuses the message that would pass the limit, with room when enough old ones leave', async () => {
    const { limiter, clock } = limiterFor({ bytesPerHour: 1000 });
    await limiter.admit(intake(1, 400));
    clock.now += 5 * 60_000;
    await limiter.admit(intake(2, 400));
    const err = await refusal(limiter.admit(intake(3, 300)));
    expect(err.message).toContain('1000 bytes per hour (bytesPerHour) is reached; there is room again at 2026-11-27T11:00:00Z');
    expect((await limiter.admit(intake(3, 200))).kind).toBe('admitted');
  });

  it('refuses for good a message larger than the limit alone', async () => {
    const { limiter } = limiterFor({ bytesPerHour: 1000 });
    const err = await refusal(limiter.admit(intake(1, 1001)));
    expect(err.smtp).toEqual({ code: 552, enhanced: '5.3.4' });
    expect(err.message).toBe("this message alone is larger than the sender's limit of 1000 bytes per hour (bytesPerHour)");
  });
});

describe('queuedIntakes', () => {
  it('counts intakes until they end, and says room comes when one ends', async () => {
    const { limiter, clock, prefix } = limiterFor({ queuedIntakes: 1 });
    const keys = intakeKeys(prefix);
    await limiter.admit(intake(1));
    await redis.zadd(keys.stateIndex('queued'), clock.now, 'in-1');
    clock.now += 10 * 60_000; // past the grace: only the state index keeps it open
    const err = await refusal(limiter.admit(intake(2)));
    expect(err.message).toBe(
      "the sender's limit of 1 intakes not yet ended (queuedIntakes) is reached; there is room again when one of them ends",
    );
    await redis.zrem(keys.stateIndex('queued'), 'in-1'); // it ended
    expect((await limiter.admit(intake(2))).kind).toBe('admitted');
  });
});

describe('a sender with limits, through the listener', () => {
  let gateway: TestGateway;
  let ops: OpsServer;
  beforeAll(async () => {
    const file = tenantSendersFile({ acme: { limits: { messagesPerHour: 2 } }, globex: { dkimSelectors: ['rsa2048'] } });
    gateway = await startTestGateway({ env: { SENDERS_FILE: file } });
    const { redis: gatewayRedis, prefix, config } = gateway;
    ops = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'silent' }),
      registry: createMetrics().registry,
      redis: gatewayRedis,
      dashboard: { user: 'admin', password: 'pw' },
      senders: () => senderViews({ sendersFile: file, inUse: {}, redis: gatewayRedis, prefix, now: Date.now() }),
    });
    expect(config.sendersFile).toBe(file);
  }, 30_000);
  afterAll(async () => {
    await ops?.close();
    await gateway?.close();
  });

  const send = async (raw: Buffer): Promise<string> =>
    (await sendOnce(gateway.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw })).data?.text ?? '';

  it('hears 451 4.7.1 past the limit; refusals and re-deliveries count nothing; other senders are not held', async () => {
    expect(await send(fixture('no-pdf.eml'))).toMatch(/^550 /);
    const first = await signedLetter({ title: 'Limit one' });
    expect(await send(first)).toMatch(/^250 /);
    expect(await send(first)).toMatch(/^250 /); // a re-delivery
    expect(await send(await signedLetter({ title: 'Limit two' }))).toMatch(/^250 /);
    expect(await send(await signedLetter({ title: 'Limit three' }))).toMatch(
      /^451 4\.7\.1 the sender's limit of 2 messages per hour \(messagesPerHour\) is reached; there is room again at \d{4}-\d\d-\d\dT/,
    );
    const globex = await sendOnce(gateway.port, {
      from: 'letters@globex.example',
      to: [PROCESSING_ADDRESS],
      raw: fixture('second-sender-globex.eml'),
    });
    expect(globex.data?.text).toMatch(/^250 /);
  });

  it("shows each sender's settings and use on the senders page", async () => {
    const headers = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`, accept: 'text/html' };
    const html = await (await fetch(`${ops.url}/admin/intakes/senders`, { headers })).text();
    expect(html).toContain('limits 2 messages/hour');
    expect(html).toContain('2 of 2 (100%)');
    expect(html).toContain('DKIM selectors rsa2048');
    const json = (await (await fetch(`${ops.url}/admin/intakes/senders?format=json`, { headers })).json()) as {
      senders: { companyNameEn: string; use?: { messages: number } }[];
    };
    expect(json.senders.map((s) => [s.companyNameEn, s.use?.messages])).toEqual([
      ['Acme Utilities', 2],
      ['Globex', undefined],
    ]);
  });
});
