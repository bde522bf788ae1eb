// The listener under relay attempts and connection abuse, over real SMTP on loopback. Relay: any
// recipient but the processing address is refused. Abuse: idle floods, per-IP floods, trickling
// clients, over-long lines, pipelining floods and header blocks held against the listener's
// memory budget; meanwhile one well-behaved client on 127.0.0.1
// delivers a signed letter, and its reply time is measured and printed. Attackers use other
// loopback addresses (127.0.0.x) so the per-IP cap does not hide the load.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { letter, signAs } from '../helpers/hostile-messages.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, type Reply, SmtpClient } from '../helpers/smtp-client.js';
import { countBy, findLeaks, type ProbeTimes, printTable, type RssWatch, standardNeedles, timedDelivery, watchRss } from './summary.js';

const SOCKET_TIMEOUT_MS = 3000;
const PER_IP = 5;
/** A well-behaved client's whole transaction must finish within this while an attack runs. */
const PROBE_LIMIT_MS = 2000;
/**
 * RSS of this whole process (the listener, the attackers' sockets, vitest): allocator and V8 page
 * retention make it vary by machine. Without the memory budget the header blocks alone would hold
 * 120 × 900 KiB several times over (≥ 500 MB). Measured on the 2-core AMD machine of 2026-11-23:
 * 63–123 MB on the code of the round before, 47–149 MB after; 67–87 MB earlier on an Intel one.
 * What the budget holds is checked exactly by the live-memory assertion of the header-block test.
 */
const RSS_GROWTH_LIMIT_MB = 180;
/** Before the line cap, one 16 MB line alone blocked the event loop for 1.5 s; 8 of these made the probe wait 19 s. */
const LONG_LINE_CLIENTS = 4;
/** Live memory after a collection: the JS heap and the buffers outside it (what a budget can hold back). */
function liveBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** The listener's global memory budget in this suite, and clients whose header blocks would need far more. */
const MEMORY_BUDGET_MB = 48;
const HEAD_CLIENTS = 120;
const HEAD_BYTES = 900 * 1024;

let gateway: TestGateway;
let rss: RssWatch;
let probeLetter: Buffer;
/** One dot-stuffed message whose body is one 14 MiB line, built before the memory baseline and shared by every attacker. */
let longLineData: Buffer;
/** A header block of HEAD_BYTES that never ends (no empty line), shared by every attacker. */
let endlessHead: Buffer;

beforeAll(async () => {
  gateway = await startTestGateway({
    env: {
      SMTP_SOCKET_TIMEOUT_MS: String(SOCKET_TIMEOUT_MS),
      SMTP_MAX_CLIENTS_PER_IP: String(PER_IP),
      SMTP_MAX_CLIENTS: '500',
      SMTP_MEMORY_BUDGET_BYTES: String(MEMORY_BUDGET_MB * 1024 * 1024),
    },
  });
  probeLetter = await signedLetter({ title: 'probe during abuse' });
  const body = letter().replace('Dear customer,', `Dear customer,\r\n${'z'.repeat(14 * 1024 * 1024)}`);
  longLineData = Buffer.concat([dotStuff(await signAs(body)), Buffer.from('\r\n.\r\n')]);
  const padLine = `X-Pad: ${'p'.repeat(1016)}\r\n`;
  endlessHead = Buffer.from(`From: <letters@acme.example>\r\n${padLine.repeat(Math.floor(HEAD_BYTES / padLine.length))}`, 'latin1');
  rss = watchRss();
  await timedDelivery(gateway.port, probeLetter); // warm-up
  rss.rebase();
});
afterAll(async () => {
  rss.stop();
  await gateway.close();
});

const ip = (n: number) => `127.0.0.${n}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rcptReply(recipient: string): Promise<Reply> {
  const { client } = await SmtpClient.open(gateway.port);
  try {
    await client.command('EHLO mta.acme.example');
    await client.command('MAIL FROM:<bounce@acme.example>');
    return await client.command(`RCPT TO:${recipient}`);
  } finally {
    await client.quit();
  }
}

const relayRows: string[][] = [];

describe('not an open relay', () => {
  // 550 5.1.1 from the recipient policy; 501 where smtp-server's address parser refuses the syntax first.
  const attempts: readonly [string, RegExp][] = [
    ['<someone@elsewhere.example>', /^550 5\.1\.1 /],
    ['<letters@evil.example>', /^550 5\.1\.1 /],
    ['<postmaster@intake.example>', /^550 5\.1\.1 /],
    ['<letters@intake.example.evil.example>', /^550 5\.1\.1 /],
    ['<letters@[127.0.0.1]>', /^550 5\.1\.1 /],
    ['<@intake.example:victim@elsewhere.example>', /^550 5\.1\.1 <victim@elsewhere\.example>/],
    ['<@a.example,@b.example:victim@elsewhere.example>', /^550 5\.1\.1 <victim@elsewhere\.example>/],
    ['<victim%elsewhere.example@intake.example>', /^550 5\.1\.1 /],
    ['<letters%intake.example@relay.example>', /^550 5\.1\.1 /],
    ['<elsewhere.example!victim@intake.example>', /^550 5\.1\.1 /],
    ['<"letters"@intake.example>', /^550 5\.1\.1 /],
    ['<"victim@elsewhere.example"@intake.example>', /^501 /],
    ['<"letters@intake.example">', /^501 /],
    ['<victim@elsewhere.example@intake.example>', /^501 /],
    ['<letters@intake.example.>', /^501 /],
    ['letters@intake.example', /^501 /],
  ];
  it.each(attempts)('RCPT TO:%s is refused', async (recipient, expected) => {
    const reply = await rcptReply(recipient);
    relayRows.push([recipient, reply.text]);
    expect(reply.code).not.toBe(250);
    expect(reply.text).toMatch(expected);
  });

  it('accepts the processing address (the control case: the policy is not refusing everything)', async () => {
    const reply = await rcptReply('<LETTERS@intake.example>');
    relayRows.push(['<LETTERS@intake.example> (control)', reply.text]);
    expect(reply.code).toBe(250);
  });

  it('offers no AUTH to relay with, and delivers a mixed transaction to the processing address only', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    await client.command('EHLO mta.acme.example');
    const auth = await client.command('AUTH PLAIN AGxldHRlcnMAc2VjcmV0');
    await client.command('MAIL FROM:<letters@acme.example>');
    const good = await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`);
    const foreign = await client.command('RCPT TO:<victim@elsewhere.example>');
    const { end } = await client.data(await signedLetter({ title: 'mixed recipients' }));
    await client.quit();
    relayRows.push(
      ['AUTH PLAIN …', auth.text],
      ['mixed: processing + victim@elsewhere.example', `${good.code} / ${foreign.code} / DATA ${end.text.slice(0, 26)}`],
    );
    expect(auth.code).toBeGreaterThanOrEqual(500);
    expect([good.code, foreign.code]).toEqual([250, 550]);
    expect((await gateway.store.get(intakeIdOf(end.text)))?.envelopeTo).toEqual([PROCESSING_ADDRESS]);
  });

  afterAll(() => {
    printTable(`hostile-relay-and-abuse: ${relayRows.length} relay attempts`, ['RCPT TO / attempt', 'reply'], relayRows);
    printTable(
      'hostile-relay-and-abuse: relay outcomes',
      ['reply', 'count'],
      countBy(relayRows, ([, r]) => (r ?? '').slice(0, 9)),
    );
  });
});

// ---- abuse ----

interface RawConnection {
  readonly socket: Socket;
  /** What the server wrote: all of it, or its head and tail once it is long (floods). */
  received(): string;
  /** Reply lines received so far with this code ("250 …", not "250-…"). */
  replies(code: number): number;
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

async function rawConnect(localAddress: string): Promise<RawConnection> {
  const socket = connect({ port: gateway.port, host: '127.0.0.1', localAddress });
  let text = '';
  let partial = '';
  let closed = false;
  const tally = new Map<number, number>();
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text = text.length > 64_000 ? text.slice(0, 4000) + text.slice(-4000) + chunk : text + chunk;
    const lines = (partial + chunk).split('\r\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const code = /^(\d{3}) /.exec(line)?.[1];
      if (code !== undefined) tally.set(Number(code), (tally.get(Number(code)) ?? 0) + 1);
    }
  });
  socket.on('error', () => {});
  const closedPromise = new Promise<void>((ok) =>
    socket.on('close', () => {
      closed = true;
      ok();
    }),
  );
  await new Promise<void>((ok, fail) => {
    socket.once('connect', ok);
    socket.once('error', fail);
  });
  return { socket, received: () => text, replies: (code) => tally.get(code) ?? 0, closed: closedPromise, isClosed: () => closed };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const greeted = (c: RawConnection) => waitFor(() => /^220 /m.test(c.received()) || c.isClosed(), 5000);

interface AbuseRow {
  readonly scenario: string;
  readonly attackers: number;
  readonly probes: readonly ProbeTimes[];
  readonly note: string;
  /** Peak RSS of this process so far, when the row was written. */
  readonly peakMb?: number;
}
const abuseRows: AbuseRow[] = [];

/** Delivers the probe letter `count` times while an attack runs; every one must be quick and accepted. */
async function probe(scenario: string, attackers: number, count: number, note: () => string): Promise<void> {
  const probes: ProbeTimes[] = [];
  for (let i = 0; i < count; i += 1) {
    probes.push(await timedDelivery(gateway.port, probeLetter));
    await sleep(100);
  }
  abuseRows.push({ scenario, attackers, probes, note: note(), peakMb: rss.peakMb });
  for (const p of probes) {
    expect(p.finalCode).toBe(250);
    expect(p.totalMs).toBeLessThan(PROBE_LIMIT_MS);
  }
}

describe('abuse: the listener stays responsive to a well-behaved client', () => {
  it('baseline: no attack', async () => {
    await probe('baseline (no attack)', 0, 3, () => '');
  });

  it('300 idle connections from 60 addresses: served, then timed out with 421', async () => {
    const idle = await Promise.all(Array.from({ length: 300 }, (_, i) => rawConnect(ip(10 + Math.floor(i / PER_IP)))));
    await Promise.all(idle.map(greeted));
    const greetedCount = idle.filter((c) => c.received().startsWith('220 ')).length;
    await probe('300 idle connections', 300, 3, () => `${greetedCount}/300 greeted`);
    const allClosed = await waitFor(() => idle.every((c) => c.isClosed()), SOCKET_TIMEOUT_MS + 5000);
    const timedOut = idle.filter((c) => /421 .*[Tt]imeout/.test(c.received())).length;
    abuseRows.push({
      scenario: '  …after SMTP_SOCKET_TIMEOUT_MS',
      attackers: 300,
      probes: [],
      note: `${timedOut}/300 got 421 timeout and were closed`,
    });
    expect(greetedCount).toBe(300);
    expect(allClosed).toBe(true);
    expect(timedOut).toBe(300);
  }, 30_000);

  it(`more than SMTP_MAX_CLIENTS_PER_IP (${PER_IP}) from one address: the rest get 421 4.7.0, and the address recovers`, async () => {
    const flood = await Promise.all(Array.from({ length: 3 * PER_IP }, () => rawConnect(ip(3))));
    await Promise.all(flood.map(greeted));
    const served = flood.filter((c) => c.received().startsWith('220 ')).length;
    const refused = flood.filter((c) => /^421 4\.7\.0 too many connections from your address/.test(c.received())).length;
    await probe(`${3 * PER_IP} connections from one IP`, 3 * PER_IP, 2, () => `${served} served, ${refused} refused 421 4.7.0`);
    for (const c of flood) c.socket.destroy();
    await Promise.all(flood.map((c) => c.closed));
    await sleep(100);
    const again = await SmtpClient.open(gateway.port, '127.0.0.1', ip(3));
    await again.client.quit();
    expect([served, refused]).toEqual([PER_IP, 2 * PER_IP]);
    expect(again.greeting.code).toBe(220);
  });

  it('trickling clients: a byte every second keeps a session, slower than the idle timeout is dropped', async () => {
    const trickle = await Promise.all(Array.from({ length: 20 }, (_, i) => rawConnect(ip(100 + Math.floor(i / PER_IP)))));
    const tooSlow = await rawConnect(ip(110));
    await Promise.all([...trickle, tooSlow].map(greeted));
    const line = 'EHLO slow.client.example\r\n';
    let stop = false;
    const drip = (c: RawConnection, everyMs: number) =>
      (async () => {
        for (let i = 0; !stop && !c.isClosed(); i += 1) {
          c.socket.write(line[i % line.length] ?? 'x');
          await sleep(everyMs);
        }
      })();
    const drips = [...trickle.map((c) => drip(c, 1000)), drip(tooSlow, SOCKET_TIMEOUT_MS + 1500)];
    await sleep(SOCKET_TIMEOUT_MS + 1000);
    await probe(
      '20 clients trickling a byte per second',
      21,
      3,
      () =>
        `${trickle.filter((c) => !c.isClosed()).length}/20 tricklers still connected (idle timer resets per byte); the 1-byte-per-4.5 s client: ${tooSlow.isClosed() ? 'dropped' : 'still connected'}`,
    );
    stop = true;
    // Read before the sockets are destroyed: every trickler is still connected past the idle timeout.
    const trickling = trickle.filter((c) => !c.isClosed()).length;
    const slowDropped = tooSlow.isClosed() && /421 .*[Tt]imeout/.test(tooSlow.received());
    for (const c of trickle) c.socket.destroy();
    await Promise.all(drips);
    expect(trickling).toBe(20);
    expect(slowDropped).toBe(true);
  }, 30_000);

  it('command lines over the 16 KiB limit get 421 and a closed connection, without buffering them', async () => {
    const long = await Promise.all(Array.from({ length: 20 }, (_, i) => rawConnect(ip(120 + Math.floor(i / PER_IP)))));
    await Promise.all(long.map(greeted));
    // half send one 20 KiB line, half stream 4 MiB with no line end at all
    long.forEach((c, i) => {
      if (i % 2 === 0) c.socket.write(`EHLO ${'a'.repeat(20 * 1024)}\r\n`);
      else for (let k = 0; k < 64; k += 1) c.socket.write('b'.repeat(64 * 1024));
    });
    await probe('20 clients sending over-long command lines', 20, 2, () => '');
    await Promise.all(long.map((c) => waitFor(() => c.isClosed(), 5000)));
    const refused = long.filter((c) => /421 Error: Command line too long/.test(c.received()) && c.isClosed()).length;
    abuseRows.push({
      scenario: '  …outcome',
      attackers: 20,
      probes: [],
      note: `${refused}/20 got "421 Error: Command line too long" and were closed`,
    });
    expect(refused).toBe(20);
  });

  it('pipelining floods: 100,000 NOOPs, 10,000 foreign RCPTs, unknown commands', async () => {
    const noop = await rawConnect(ip(130));
    const rcpt = await rawConnect(ip(131));
    const junk = await rawConnect(ip(132));
    await Promise.all([noop, rcpt, junk].map(greeted));
    noop.socket.write('NOOP\r\n'.repeat(100_000));
    rcpt.socket.write(`EHLO flood.example\r\nMAIL FROM:<x@flood.example>\r\n${'RCPT TO:<victim@elsewhere.example>\r\n'.repeat(10_000)}`);
    junk.socket.write('XYZZY\r\n'.repeat(10_000));
    await probe('pipelining floods (3 clients)', 3, 3, () => '');
    await waitFor(() => noop.replies(250) >= 100_000 && rcpt.replies(550) >= 10_000, 20_000);
    const junkClosed = await waitFor(() => junk.isClosed(), 5000);
    abuseRows.push({
      scenario: '  …outcome',
      attackers: 3,
      probes: [],
      note: `${noop.replies(250)} NOOPs answered 250, ${rcpt.replies(550)} foreign RCPTs answered 550, unknown commands: ${junkClosed ? 'closed with 421' : 'still open'}`,
    });
    noop.socket.destroy();
    rcpt.socket.destroy();
    expect(noop.replies(250)).toBe(100_000);
    expect(rcpt.replies(550)).toBe(10_000);
    expect(rcpt.replies(250)).toBe(2); // EHLO and MAIL FROM; no RCPT was accepted
    expect(junkClosed && /421 Error: too many unrecognized commands/.test(junk.received())).toBe(true);
  }, 40_000);

  it(`DATA of one 14 MiB line, ${LONG_LINE_CLIENTS} clients at once: refused 554 5.6.0 without stalling the listener`, async () => {
    const attackers = await Promise.all(Array.from({ length: LONG_LINE_CLIENTS }, (_, i) => rawConnect(ip(140 + i))));
    await Promise.all(attackers.map(greeted));
    for (const c of attackers)
      c.socket.write(`EHLO long.example\r\nMAIL FROM:<letters@acme.example>\r\nRCPT TO:<${PROCESSING_ADDRESS}>\r\nDATA\r\n`);
    await Promise.all(attackers.map((c) => waitFor(() => /^354 /m.test(c.received()), 5000)));
    for (const c of attackers) c.socket.write(longLineData);
    await sleep(300);
    await probe(`${LONG_LINE_CLIENTS} clients sending one 14 MiB line each`, LONG_LINE_CLIENTS, 3, () => '');
    await Promise.all(attackers.map((c) => waitFor(() => /^(250|[45]\d\d) /m.test(c.received().split(/^354 .*$/m)[1] ?? ''), 60_000)));
    const replies = attackers.map((c) => (c.received().split(/^354 .*\r\n/m)[1] ?? '').trim());
    for (const c of attackers) c.socket.destroy();
    abuseRows.push({
      scenario: '  …outcome',
      attackers: LONG_LINE_CLIENTS,
      probes: [],
      note: countBy(replies, (r) => r.slice(0, 44))
        .map(([k, n]) => `${n}× ${k}`)
        .join(', '),
    });
    for (const reply of replies) expect(reply).toMatch(/^554 5\.6\.0 message has a line longer than/);
  }, 120_000);

  it(`header blocks that never end, ${HEAD_CLIENTS} clients at once: the listener holds them within its memory budget, refuses new mail 452 4.3.1 meanwhile, and accepts again once they are gone`, async () => {
    gc?.();
    const rssBefore = process.memoryUsage.rss();
    const liveBefore = liveBytes();
    const attackers = await Promise.all(Array.from({ length: HEAD_CLIENTS }, (_, i) => rawConnect(ip(150 + Math.floor(i / PER_IP)))));
    await Promise.all(attackers.map(greeted));
    for (const c of attackers)
      c.socket.write(`EHLO head.example\r\nMAIL FROM:<letters@acme.example>\r\nRCPT TO:<${PROCESSING_ADDRESS}>\r\nDATA\r\n`);
    await Promise.all(attackers.map((c) => waitFor(() => /^354 /m.test(c.received()), 5000)));
    await Promise.all(attackers.map((c) => new Promise<void>((ok) => c.socket.write(endlessHead, () => ok()))));
    // one more header line a second keeps each session inside the 3 s idle timeout
    const keepAlive = setInterval(() => {
      for (const c of attackers) c.socket.write('X-More: 1\r\n');
    }, 1000);
    // A well-behaved sender meanwhile: refused for now once the held header blocks fill the budget.
    let mail: Reply = { code: 0, text: '(not tried)' };
    for (let i = 0; i < 50 && mail.code !== 452; i += 1) {
      await sleep(100);
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      mail = await client.command('MAIL FROM:<bounce@acme.example>');
      await client.quit();
    }
    // What is held, not the dropped chunks waiting for the collector: collect garbage first.
    if (gc === undefined) throw new Error('the fault suite runs with --expose-gc (vitest.faults.config.ts)');
    gc();
    const heldMb = Math.round((liveBytes() - liveBefore) / (1024 * 1024));
    const rssMb = Math.round((process.memoryUsage.rss() - rssBefore) / (1024 * 1024));
    clearInterval(keepAlive);
    for (const c of attackers) c.socket.write('\r\n\r\nbody\r\n.\r\n');
    await Promise.all(attackers.map((c) => waitFor(() => /^(250|[45]\d\d) /m.test(c.received().split(/^354 .*$/m)[1] ?? ''), 20_000)));
    const replies = attackers.map((c) => (c.received().split(/^354 .*\r\n/m)[1] ?? '').trim());
    for (const c of attackers) c.socket.destroy();
    await Promise.all(attackers.map((c) => c.closed));
    await sleep(200);
    abuseRows.push({
      scenario: `${HEAD_CLIENTS} clients each holding a ${HEAD_BYTES / 1024} KiB header block`,
      attackers: HEAD_CLIENTS,
      probes: [],
      note: `live memory (JS heap and buffers) growth while held ${heldMb} MB, RSS ${rssMb} MB (budget ${MEMORY_BUDGET_MB} MB); new MAIL meanwhile: ${mail.text.slice(0, 40)}; DATA replies: ${countBy(
        replies,
        (r) => r.slice(0, 9),
      )
        .map(([k, n]) => `${n}× ${k}`)
        .join(', ')}`,
      peakMb: rss.peakMb,
    });
    expect(mail.text).toMatch(/^452 4\.3\.1 /);
    expect(heldMb).toBeLessThan(MEMORY_BUDGET_MB + 40);
    // 452: past the budget; 550: held within it, then refused as unsigned.
    for (const reply of replies) expect(reply).toMatch(/^(452 4\.3\.1|550 5\.7\.1) /);
    expect(replies.filter((r) => r.startsWith('452 4.3.1')).length).toBeGreaterThan(HEAD_CLIENTS / 2);
    await probe('after the header-block clients left', 0, 2, () => 'the budget is free again');
  }, 60_000);

  it(`kept the RSS growth of the listener process under ${RSS_GROWTH_LIMIT_MB} MB`, () => {
    abuseRows.push({
      scenario: 'memory (RSS)',
      attackers: 0,
      probes: [],
      note: `baseline ${rss.baselineMb} MB, peak ${rss.peakMb} MB, growth ${rss.growthMb} MB`,
    });
    expect(rss.growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);
  });

  afterAll(() => {
    const ms = (values: readonly number[]) => (values.length === 0 ? '-' : String(Math.round(Math.max(...values))));
    printTable(
      `hostile-relay-and-abuse: ${abuseRows.filter((r) => r.probes.length > 0).length} abuse scenarios, well-behaved client on 127.0.0.1 (max of its deliveries; limit ${PROBE_LIMIT_MS} ms)`,
      ['scenario', 'attack conns', 'probe 220 ms', 'probe EHLO..RCPT ms', 'probe total ms', 'probe replies', 'RSS peak MB', 'observed'],
      abuseRows.map((r) => [
        r.scenario,
        r.attackers,
        ms(r.probes.map((p) => p.greetingMs)),
        ms(r.probes.map((p) => p.commandsMs)),
        ms(r.probes.map((p) => p.totalMs)),
        r.probes.map((p) => p.finalCode).join(',') || '-',
        r.peakMb ?? '-',
        r.note,
      ]),
    );
  });
});

describe('the logs of this file', () => {
  it('logged no client secret, message body or PDF bytes', () => {
    expect(gateway.logs.length).toBeGreaterThan(20);
    expect(findLeaks(gateway.logs, standardNeedles())).toEqual([]);
  });
});
