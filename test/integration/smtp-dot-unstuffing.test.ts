// smtp-server un-stuffs DATA itself (RFC 5321 §4.5.2): a line that begins with "." arrives without
// that first "."; the data ends at CRLF "." CRLF, which is not content. These cases hold however the
// client's writes are cut into TCP segments, checked on a bare smtp-server (the library as
// patches/ leaves it: its search for line-initial dots is patched; these are regression tests of
// its semantics, passing on the library with and without the patch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_REPLY, type SegmentSink, startSegmentSink } from '../helpers/segment-sink.js';
import { type Reply, SmtpClient } from '../helpers/smtp-client.js';

let sink: SegmentSink;

beforeAll(async () => {
  sink = await startSegmentSink();
});
afterAll(async () => {
  await sink.close();
});

/** The content a DATA section as written must deliver: its lines up to the line ".", each without
 * its first "." when it starts with one. */
function unstuffed(section: string): string {
  let content = '';
  let at = 0;
  for (;;) {
    const end = section.indexOf('\r\n', at);
    if (end === -1) throw new Error('the section has no terminator line');
    const line = section.slice(at, end);
    if (line === '.') return content;
    content += `${line.startsWith('.') ? line.slice(1) : line}\r\n`;
    at = end + 2;
  }
}

/** DATA sections as a client writes them (dot-stuffed, ending with the terminator). */
const SECTIONS: Record<string, string> = {
  'a dot line, a two-dot line and a dotted word inside': 'Subject: dots\r\n\r\n..\r\n...\r\n..hidden\r\nplain\r\n.\r\n',
  'a dot line as the very first line': '..\r\nafter it\r\n.\r\n',
  'a two-dot line as the very first line': '...\r\n.\r\n',
  'a dot line just before the terminator': 'body\r\n..\r\n.\r\n',
  'dot lines one after another': 'a\r\n..\r\n..\r\n...\r\n.\r\n',
  'a dot line and then a QUIT line, both content': '..\r\nQUIT\r\n..\r\n.\r\n',
  'no content at all': '.\r\n',
};

/** About 9 KB of 76-character lines with dot lines of each kind every ninth line. */
function longSection(): string {
  const dotLines = ['..', '...', `..${'d'.repeat(74)}`, '.....'];
  const lines: string[] = [];
  for (let n = 0; n < 120; n++) {
    lines.push(n % 9 === 4 ? (dotLines[n % dotLines.length] ?? '..') : String.fromCharCode(65 + (n % 26)).repeat(76));
  }
  return `${lines.join('\r\n')}\r\n.\r\n`;
}

/** Offsets within `reach` bytes of every line-initial dot (the terminator's included). */
function cutsAroundDots(section: string, reach: number): number[] {
  const cuts = new Set<number>();
  for (let at = section.indexOf('\n.'); at !== -1; at = section.indexOf('\n.', at + 1)) {
    for (let cut = at + 1 - reach; cut <= at + 1 + reach; cut++) {
      if (cut > 0 && cut < section.length) cuts.add(cut);
    }
  }
  return [...cuts].sort((a, b) => a - b);
}

/** A connection past its greeting and EHLO. */
async function openSession(): Promise<SmtpClient> {
  const { client } = await SmtpClient.open(sink.port);
  await expectReply(client.command('EHLO client.example'), 250);
  return client;
}

const everyOffset = (section: string): number[] => Array.from({ length: section.length - 1 }, (_, i) => i + 1);

const REPLY_WAIT_MS = 5_000;

/** The next reply, or code 0 when none comes in time (a DATA whose end was missed never gets one). */
async function nextReply(client: SmtpClient): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Reply>((ok) => {
    timer = setTimeout(() => ok({ code: 0, text: `(no reply within ${REPLY_WAIT_MS} ms)` }), REPLY_WAIT_MS);
  });
  return Promise.race([client.read(), late]).finally(() => clearTimeout(timer));
}

/** QUIT, unless the session was lost in DATA (a QUIT there is content and gets no reply). */
async function endSession(client: SmtpClient, lost: boolean): Promise<void> {
  if (lost) client.close();
  else await client.quit();
}

async function expectReply(reply: Promise<Reply>, code: number): Promise<void> {
  expect((await reply).code).toBe(code);
}

/**
 * One transaction whose DATA section is written in pieces cut at `cuts`, each piece written only
 * after the server has read the one before: the server reads a segment boundary at every cut.
 */
async function sendInPieces(client: SmtpClient, section: Buffer, cuts: readonly number[]): Promise<Reply> {
  await expectReply(client.command('MAIL FROM:<dots@sender.example>'), 250);
  await expectReply(client.command('RCPT TO:<kept@sink.example>'), 250);
  await expectReply(client.command('DATA'), 354);
  const start = sink.bytesRead();
  let from = 0;
  for (const cut of cuts) {
    client.write(section.subarray(from, cut));
    await sink.readUpTo(start + cut);
    expect(sink.readEnds).toContain(start + cut);
    from = cut;
  }
  client.write(section.subarray(from));
  return nextReply(client);
}

/** Sends `section` once per cut (or once with all of them) and lists every cut whose message differs. */
function wrongDeliveries(section: string, plans: readonly (readonly number[])[]): Promise<string[]> {
  return wrongDeliveriesOf(section, unstuffed(section), plans);
}

/** The same, against the content `expected`. */
async function wrongDeliveriesOf(section: string, expected: string, plans: readonly (readonly number[])[]): Promise<string[]> {
  const wrong: string[] = [];
  const client = await openSession();
  let lost = false;
  try {
    for (const cuts of plans) {
      const reply = await sendInPieces(client, Buffer.from(section, 'latin1'), cuts);
      const got = reply.code === 250 ? sink.messages.shift()?.toString('latin1') : undefined;
      if (reply.text !== `250 ${KEPT_REPLY}` || got !== expected) {
        wrong.push(`cut at ${cuts.join(',')}: ${reply.text} ${JSON.stringify(got)}`);
      }
      lost = reply.code === 0;
      if (lost) break;
    }
  } finally {
    await endSession(client, lost);
  }
  return wrong;
}

describe('a dot-stuffed DATA section over SMTP', () => {
  it('is expected back as the spec says (a check of the expectations themselves)', () => {
    expect(unstuffed(SECTIONS['a dot line, a two-dot line and a dotted word inside'] ?? '')).toBe(
      'Subject: dots\r\n\r\n.\r\n..\r\n.hidden\r\nplain\r\n',
    );
    expect(unstuffed('.\r\n')).toBe('');
  });

  it.each(Object.entries(SECTIONS))('with %s arrives un-stuffed when cut at any one byte offset', async (_, section) => {
    expect(
      await wrongDeliveries(
        section,
        everyOffset(section).map((cut) => [cut]),
      ),
    ).toEqual([]);
  });

  it.each(Object.entries(SECTIONS))('with %s arrives un-stuffed when written a byte at a time', async (_, section) => {
    expect(await wrongDeliveries(section, [everyOffset(section)])).toEqual([]);
  });

  it('of 9 KB with dot lines throughout arrives un-stuffed whole and when cut near any of its dots', async () => {
    const section = longSection();
    const plans = [[], ...cutsAroundDots(section, 3).map((cut) => [cut])];
    expect(plans.length).toBeGreaterThan(90);
    expect(await wrongDeliveries(section, plans)).toEqual([]);
  });
});

describe('a dot after a bare LF', () => {
  // smtp-server takes a dot after a bare LF as line-initial too (the published library does);
  // the patch searches a segment from its first byte when the one before ended in none of CR,
  // LF or dot, and must keep doing so while it holds back short segments.
  const section = 'abcd\n..\r\nmore\r\n.\r\n';
  const delivered = 'abcd\n.\r\nmore\r\n';

  it('loses its escape dot however the writes are cut in two or three', async () => {
    const plans: number[][] = [];
    for (let first = 1; first < section.length; first++) {
      plans.push([first]);
      for (let second = first + 1; second < section.length; second++) plans.push([first, second]);
    }
    const wrong = await wrongDeliveriesOf(section, delivered, plans);
    expect(wrong).toEqual([]);
  });
});

describe('the end of DATA cut across segments, with the next command in the same write', () => {
  const content = 'line one\r\n..\r\nline three\r\n';
  const delivered = 'line one\r\n.\r\nline three\r\n';
  const terminatorAt = content.length; // "\r\n" of the last line is content; ".\r\n" follows

  it('ends DATA once and answers the pipelined MAIL FROM as a command, at every cut', async () => {
    const written = `${content}.\r\nMAIL FROM:<next@sender.example>\r\n`;
    const client = await openSession();
    const wrong: string[] = [];
    let lost = false;
    try {
      for (let cut = terminatorAt - 4; cut < written.length; cut++) {
        const before = sink.messages.length;
        const end = await sendInPieces(client, Buffer.from(written, 'latin1'), [cut]);
        const mail = await nextReply(client);
        const reset = await client.command('RSET');
        const got = sink.messages.slice(before).map((m) => m.toString('latin1'));
        sink.messages.splice(before);
        const seen = [end.text, mail.text, reset.text, JSON.stringify(got)].join(' | ');
        const right = [`250 ${KEPT_REPLY}`, '250 Accepted', '250 Flushed', JSON.stringify([delivered])];
        if (seen !== right.join(' | ')) wrong.push(`cut at ${cut}: ${seen}`);
        lost = end.code === 0 || mail.code === 0;
        if (lost) break;
      }
    } finally {
      await endSession(client, lost);
    }
    expect(wrong).toEqual([]);
  });

  it.each([1, 2, 3, 4])('ends DATA once and QUIT behind it closes the session (cut %i bytes into CRLF.CRLF)', async (into) => {
    const written = `${content}.\r\nQUIT\r\n`;
    const before = sink.messages.length;
    const client = await openSession();
    try {
      const end = await sendInPieces(client, Buffer.from(written, 'latin1'), [terminatorAt - 2 + into]);
      expect(end.text).toBe(`250 ${KEPT_REPLY}`);
      expect((await nextReply(client)).code).toBe(221);
      expect((await nextReply(client)).text).toBe('(connection closed)');
    } finally {
      client.close();
    }
    expect(sink.messages.slice(before).map((m) => m.toString('latin1'))).toEqual([delivered]);
    sink.messages.splice(before);
  });
});
