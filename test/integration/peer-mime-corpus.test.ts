// Messages nobody here wrote (../shared/peer/mime, 81 files from other parsers' test corpora)
// through the worker's parse-and-decide path: each gets a decision, none throws or hangs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { decide } from '../../src/worker/decide.js';
import { isParserLimit, parseMessage } from '../../src/worker/parse-message.js';
import { REPO } from '../helpers/gateway.js';

const PEER_MIME = resolve(REPO, '../shared/peer/mime');

function emlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? emlFiles(path) : name.endsWith('.eml') ? [path] : [];
  });
}

/** A directory registering the message's own sender, so the PDF and subject rules decide. */
function registering(fromAddresses: readonly string[]) {
  const sender = (addresses: readonly string[]) => ({ senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f', companyNameEn: 'Peer', addresses, apiClientId: 'peer', apiClientSecret: 'x' });
  try {
    return parseSenderDirectory({ senders: [sender(fromAddresses.slice(0, 1))] }, {});
  } catch {
    return parseSenderDirectory({ senders: [sender(['nobody@peer.example'])] }, {}); // From is not an address
  }
}

describe('the peer MIME corpus', () => {
  it('gives every message a decision, and prints the decisions by reason', async () => {
    const files = emlFiles(PEER_MIME);
    expect(files.length).toBeGreaterThanOrEqual(70);
    const decisions = new Map<string, string[]>();
    for (const file of files) {
      const parsed = await parseMessage(readFileSync(file)).catch((err: unknown) => (isParserLimit(err) ? 'UnparseableMessage' : 'ParserError'));
      const decision = typeof parsed === 'string' ? parsed : decide(parsed, { directory: registering(parsed.fromAddresses), maxPdfBytes: 10 * 1024 * 1024 });
      const key = typeof decision === 'string' ? decision : decision.kind === 'letter' ? 'letter' : decision.reasonCode;
      decisions.set(key, [...(decisions.get(key) ?? []), relative(PEER_MIME, file)]);
      if (typeof decision !== 'string' && decision.kind === 'letter') {
        for (const part of decision.letter.parts) {
          expect(part.fileName).not.toMatch(/[/\\\u0000-\u001f]/);
          expect(Buffer.from(part.base64Data, 'base64').subarray(0, 5).toString('latin1')).toBe('%PDF-');
        }
      }
    }
    const table = [...decisions.entries()].sort().map(([k, v]) => `  ${k.padEnd(22)} ${String(v.length).padStart(3)}`);
    process.stdout.write(`\npeer MIME corpus: ${files.length} messages\n${table.join('\n')}\n`);
    expect([...decisions.values()].reduce((n, v) => n + v.length, 0)).toBe(files.length);
    expect(decisions.get('letter')?.length ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
