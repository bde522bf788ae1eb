// mailsplit's body fast path (patches/@zone-eu+mailsplit+5.4.19.patch: runs of body lines that
// cannot be delimiter lines are taken in bulk) must emit exactly what the line-by-line path
// emits. The reference is the same splitter with the switch off, on the same bytes cut the same
// ways: whole, in 64 KiB writes, at random points, one byte at a time, and right after "\n" and
// right before "-". Inputs: every fixture, the hostile set, the peer corpus (PEER_CORPUS_DIR)
// and generated messages full of near-delimiters (test/helpers/delimiter-edge-messages.ts),
// with mailsplit's default limits and with tight ones. Joining what the splitter emits must
// also give back the input, byte for byte: mailsplit is lossless, except that a delimiter line
// inside a header block drops that block (on either path), so generated messages built with
// such strays are only compared.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MimeNode, Splitter } from '@zone-eu/mailsplit';
import { afterEach, describe, expect, it } from 'vitest';
import { namedChunkings } from '../helpers/chunkings.js';
import { delimiterEdgeMessages } from '../helpers/delimiter-edge-messages.js';
import { malformedCases } from '../helpers/hostile-messages.js';
import { peerCorpus } from '../helpers/peer-corpus.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const SEED = 20261123;
const FIXTURES_DIR = join(import.meta.dirname, '../../fixtures');
const PEER = peerCorpus('', 'mailsplit-body-fast-path (peer messages)');
/** Messages up to this size are also written one byte at a time. */
const BYTEWISE_MAX = 32 * 1024;
const TIGHT_LIMITS = { maxChildNodes: 4, maxHeadSize: 200 };

type Limits = typeof TIGHT_LIMITS | undefined;

function messageFiles(dir: string, extensions: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? messageFiles(path, extensions) : extensions.test(name) ? [path] : [];
  });
}

interface Entry {
  readonly kind: 'node' | 'data' | 'body';
  /** Which node, numbered in the order the splitter first mentions it. */
  readonly node: number;
  readonly bytes: Buffer;
}

interface Split {
  /** Node headers, and each run of data or body chunks of one node joined. */
  readonly entries: readonly Entry[];
  readonly error: string | undefined;
}

async function split(chunks: readonly Buffer[], limits: Limits, fastPath: boolean): Promise<Split> {
  Splitter.bodyFastPath = fastPath;
  const runs: { kind: Entry['kind']; node: number; parts: Buffer[] }[] = [];
  const nodes = new Map<MimeNode, number>();
  const numberOf = (node: MimeNode): number => {
    const known = nodes.get(node);
    if (known !== undefined) return known;
    nodes.set(node, nodes.size);
    return nodes.size - 1;
  };
  const record = (kind: Entry['kind'], node: MimeNode, bytes: Buffer) => {
    const last = runs.at(-1);
    const n = numberOf(node);
    if (kind !== 'node' && last !== undefined && last.kind === kind && last.node === n) last.parts.push(bytes);
    else runs.push({ kind, node: n, parts: [bytes] });
  };
  try {
    await pipeline(Readable.from(chunks), new Splitter(limits), async (items: AsyncIterable<unknown>) => {
      for await (const item of items) {
        if (item instanceof MimeNode) record('node', item, item.getHeaders());
        else if (isChunk(item)) record(item.type, item.node, item.value);
        else throw new Error(`the splitter emitted something unexpected: ${String(item)}`);
      }
    });
  } catch (err) {
    // how far a failed split got depends on when the consumer read, so only the error counts
    return { entries: [], error: errorOf(err) };
  }
  return { entries: runs.map((r) => ({ kind: r.kind, node: r.node, bytes: Buffer.concat(r.parts) })), error: undefined };
}

function isChunk(item: unknown): item is { readonly type: 'data' | 'body'; readonly node: MimeNode; readonly value: Buffer } {
  return (
    typeof item === 'object' &&
    item !== null &&
    'type' in item &&
    (item.type === 'data' || item.type === 'body') &&
    'node' in item &&
    item.node instanceof MimeNode &&
    'value' in item &&
    Buffer.isBuffer(item.value)
  );
}

function errorOf(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  return `${code} ${err instanceof Error ? err.message : String(err)}`;
}

const digest = (bytes: Buffer) => `${bytes.length} bytes, sha1 ${createHash('sha1').update(bytes).digest('hex')}`;

/** Readable in a failure diff: each entry's size and digest, not megabytes of bytes. */
function summary(result: Split) {
  return { error: result.error, entries: result.entries.map((e) => `${e.kind} #${e.node}: ${digest(e.bytes)}`) };
}

interface Input {
  readonly name: string;
  readonly raw: Buffer;
  /** False for a message with a delimiter inside a header block: mailsplit drops that block. */
  readonly lossless: boolean;
}

async function expectSameSplit({ name, raw, lossless }: Input, limits: Limits, random: () => number): Promise<void> {
  for (const [way, chunks] of namedChunkings(raw, random, BYTEWISE_MAX)) {
    const lineByLine = await split(chunks, limits, false);
    const fast = await split(chunks, limits, true);
    expect(summary(fast), `${name}, ${way}`).toEqual(summary(lineByLine));
    if (lossless && fast.error === undefined) {
      const joined = Buffer.concat(fast.entries.map((e) => e.bytes));
      expect(digest(joined), `${name}, ${way}: joined output`).toBe(digest(raw));
    }
  }
}

describe('mailsplit body fast path', () => {
  const random = mulberry32(SEED);

  afterEach(() => {
    Splitter.bodyFastPath = true;
  });

  it('is on unless switched off', () => {
    expect(Splitter.bodyFastPath).toBe(true);
  });

  it('splits every fixture as the line-by-line path does', async () => {
    const files = messageFiles(FIXTURES_DIR, /\.eml$/);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      await expectSameSplit({ name: relative(FIXTURES_DIR, file), raw: readFileSync(file), lossless: true }, undefined, random);
    }
  }, 60_000);

  it('splits every hostile message as the line-by-line path does', async () => {
    for (const hostile of malformedCases(4 * 1024 * 1024)) {
      await expectSameSplit({ name: hostile.name, raw: await hostile.build(), lossless: true }, undefined, random);
    }
  }, 180_000);

  it.skipIf(PEER === undefined)(
    'splits every message of the peer corpus as the line-by-line path does',
    async () => {
      const dir = PEER ?? '';
      const files = messageFiles(dir, /\.(eml|msg|message|mbox)$/);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const message = { name: relative(dir, file), raw: readFileSync(file), lossless: true };
        await expectSameSplit(message, undefined, random);
        await expectSameSplit({ ...message, name: `${message.name} (tight limits)` }, TIGHT_LIMITS, random);
      }
    },
    120_000,
  );

  it.each([
    ['default', undefined],
    ['tight', TIGHT_LIMITS],
  ] as const)(
    'splits generated near-delimiter messages as the line-by-line path does (%s limits)',
    async (_label, limits) => {
      for (const message of delimiterEdgeMessages(random, 500)) {
        await expectSameSplit({ ...message, lossless: message.headersComplete }, limits, random);
      }
    },
    120_000,
  );

  it('takes a body line that starts a write with a delimiter as a delimiter', async () => {
    const raw = Buffer.from('Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\n\r\nfirst\r\nsecond\r\n--b--\r\n');
    const at = raw.indexOf('--b--');
    const result = await split([raw.subarray(0, at), raw.subarray(at)], undefined, true);
    expect(result.entries.map((e) => [e.kind, e.bytes.toString('latin1')])).toEqual([
      ['node', 'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'],
      ['data', '--b\r\n'],
      ['node', '\r\n'],
      ['body', 'first\r\nsecond'],
      ['data', '\r\n--b--\r\n'],
    ]);
  });
});
