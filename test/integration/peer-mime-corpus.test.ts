// Messages nobody here wrote (the peer corpus's mime/ folder: 71 messages from other parsers'
// test corpora) through the worker's parse-and-decide path. What each must give is written in
// test/fixtures-peer/mime-expectations.ts from reading the message; a message that does not
// parse is its own outcome (UnparseableMessage), never counted as a decision.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSenderDirectory, type SenderDirectory } from '../../src/senders/directory.js';
import { decide } from '../../src/worker/decide.js';
import { isParserLimit, parseMessage } from '../../src/worker/parse-message.js';
import { PEER_MIME_EXPECTATIONS, type PeerMimeExpectation } from '../fixtures-peer/mime-expectations.js';
import { peerCorpus } from '../helpers/peer-corpus.js';

const PEER_MIME = peerCorpus('mime', 'peer-mime-corpus');

function emlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? emlFiles(path) : name.endsWith('.eml') ? [path] : [];
  });
}

/** A directory registering `address`; none when no directory can hold it (the table says which). */
function registering(address: string | null): SenderDirectory {
  const sender = (addresses: readonly string[]) => ({
    senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
    companyNameEn: 'Peer',
    addresses,
    apiClientId: 'peer',
    apiClientSecret: 'x',
  });
  try {
    if (address !== null) return parseSenderDirectory({ senders: [sender([address])] }, {});
  } catch {
    // an address the directory schema refuses: nobody can register it
  }
  return parseSenderDirectory({ senders: [sender(['nobody@peer.example'])] }, {});
}

interface Outcome {
  readonly outcome: string;
  readonly from: readonly string[] | 'unparsed';
  readonly pdfs: number;
}

async function outcomeOf(dir: string, row: PeerMimeExpectation): Promise<Outcome> {
  // A parser limit is a rule of the message; any other parse error is a defect (ParserError).
  const parsed = await parseMessage(readFileSync(join(dir, row.file))).catch((err: unknown) =>
    isParserLimit(err) ? 'UnparseableMessage' : 'ParserError',
  );
  if (typeof parsed === 'string') return { outcome: parsed, from: 'unparsed', pdfs: 0 };
  const decision = decide(parsed, { directory: registering(row.from), maxPdfBytes: 10 * 1024 * 1024 });
  if (decision.kind === 'rejected') return { outcome: decision.reasonCode, from: parsed.fromAddresses, pdfs: 0 };
  for (const part of decision.letter.parts) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserts that no control character reaches a file name
    expect(part.fileName, row.file).not.toMatch(/[/\\\u0000-\u001f]/);
    expect(Buffer.from(String(part.base64Data), 'base64').subarray(0, 5).toString('latin1'), row.file).toBe('%PDF-');
  }
  return { outcome: 'submitted', from: parsed.fromAddresses, pdfs: decision.letter.parts.length };
}

describe.skipIf(PEER_MIME === undefined)('the peer MIME corpus, as sent', () => {
  const dir = PEER_MIME ?? '';

  it('has exactly the messages the expectation table lists', () => {
    const onDisk = emlFiles(dir)
      .map((f) => relative(dir, f))
      .sort();
    expect(onDisk).toEqual(PEER_MIME_EXPECTATIONS.map((r) => r.file).sort());
  });

  it.each(PEER_MIME_EXPECTATIONS.map((r) => [r.file, r] as const))('%s gives what the table says', async (_file, row) => {
    const got = await outcomeOf(dir, row);
    expect(got).toEqual({
      outcome: row.asSent,
      from: row.from === null ? [] : [row.from],
      pdfs: row.asSent === 'submitted' ? row.pdfs : 0,
    });
  });
});
