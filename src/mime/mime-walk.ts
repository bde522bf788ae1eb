// The streaming MIME walk: while the DATA bytes arrive, the facts the message rules judge
// (words/message-facts.ts), with bounded memory. mailsplit (the splitter mailparser is built
// on, with mailparser's settings) cuts the message into parts; of each attachment only its
// decoded length and first bytes are kept, as the part's own decoder gives them (base64 is
// counted rather than decoded where that gives the same answer: fast-paths/base64-counter.ts).
// What counts as an attachment, its type and name follow mailparser's reading exactly, so
// the listener and the worker judge the same facts.

import type { Transform } from 'node:stream';
import { MimeNode, Splitter } from '@zone-eu/mailsplit';
import libmime from 'libmime';
import { countBase64Body } from '../fast-paths/index.js';
import type { BodyCounter, BodyFacts } from '../net/body-facts.js';
import { declaredType, FIRST_BYTES, type PartFacts } from '../words/message-facts.js';

export type WalkResult =
  | { readonly kind: 'walked'; readonly subject: string; readonly parts: readonly PartFacts[] }
  /** mailsplit refused the structure (over 1,000 parts, a header block over 1 MiB): so does mailparser. */
  | { readonly kind: 'unparseable'; readonly why: string };

/** mailparser reads these as body text, not attachments, unless marked as attachments. */
const TEXT_TYPES = ['text/plain', 'text/html', 'message/delivery-status'];

export interface MimeWalk {
  /** Write the message's bytes here (it is a stream; pipe into it). */
  readonly input: NodeJS.WritableStream;
  /** Settles once the input ended; rejects only on a bug in the walk. */
  readonly result: Promise<WalkResult>;
  /** Stops the walk (the client went away). */
  abort(): void;
}

export function startMimeWalk(): MimeWalk {
  const splitter = new Splitter(); // mailparser's defaults: embedded messages only when inline
  const result = walk(splitter);
  return { input: splitter, result, abort: () => splitter.destroy() };
}

async function walk(splitter: Splitter): Promise<WalkResult> {
  let subject = '';
  const parts: PartFacts[] = [];
  let current: PartCounter | undefined;
  try {
    const items: AsyncIterable<unknown> = splitter; // what it yields is checked below
    for await (const item of items) {
      if (item instanceof MimeNode || (isChunk(item) && item.type === 'data')) {
        if (current !== undefined) parts.push(await current.end()); // the part's body is over
        current = undefined;
      }
      if (item instanceof MimeNode) {
        if (item.root) subject = subjectOf(item);
        const part = attachmentOf(item);
        if (part !== undefined) current = new PartCounter(item, part);
      } else if (isChunk(item) && item.type === 'body') {
        await current?.write(item.value);
      }
    }
    if (current !== undefined) parts.push(await current.end());
  } catch (err) {
    if (hasCode(err, 'EMAXLEN')) return { kind: 'unparseable', why: err instanceof Error ? err.message : String(err) };
    throw err;
  }
  return { kind: 'walked', subject, parts };
}

/** An attachment's decoded length and first bytes, counted as its body passes. */
class PartCounter {
  private readonly body: BodyCounter;

  constructor(
    node: MimeNode,
    private readonly part: Pick<PartFacts, 'contentType' | 'fileName'>,
  ) {
    // the decoder mailparser would use (libbase64, libqp, or none), or, for base64, its count
    this.body =
      (node.encoding === 'base64' ? countBase64Body(() => node.getDecoder()) : undefined) ?? new DecodedCounter(node.getDecoder());
  }

  write(chunk: Buffer): Promise<void> {
    return this.body.write(chunk);
  }

  async end(): Promise<PartFacts> {
    return { ...this.part, ...(await this.body.end()) };
  }
}

/** Counts what the part's decoder puts out. */
class DecodedCounter implements BodyCounter {
  private first = Buffer.alloc(0);
  private decoded = 0;
  private readonly ended: Promise<void>;

  constructor(private readonly decoder: Transform) {
    decoder.on('data', (chunk: Buffer) => {
      this.decoded += chunk.length;
      // a copy: a view would pin the whole decoded chunk
      if (this.first.length < FIRST_BYTES) this.first = Buffer.concat([this.first, chunk.subarray(0, FIRST_BYTES - this.first.length)]);
    });
    this.ended = new Promise((resolve, reject) => {
      decoder.once('end', resolve);
      decoder.once('error', reject);
    });
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.decoder.write(chunk)) await new Promise((resolve) => this.decoder.once('drain', resolve));
  }

  async end(): Promise<BodyFacts> {
    this.decoder.end();
    await this.ended;
    return { firstBytes: this.first, decodedBytes: this.decoded };
  }
}

/** mailparser's attachment for this node, or undefined when it reads the node otherwise. */
export function attachmentOf(node: MimeNode): Pick<PartFacts, 'contentType' | 'fileName'> | undefined {
  if (node.multipart !== false) return undefined;
  if (node.contentType === 'message/rfc822' && node.messageNode === true) return undefined; // its parts follow
  const contentType = node.contentType === false ? (node.root ? 'text/plain' : '') : node.contentType;
  const given = node.disposition === false ? undefined : node.disposition;
  const disposition =
    given === undefined
      ? TEXT_TYPES.includes(contentType)
        ? 'inline'
        : 'attachment'
      : ['attachment', 'inline'].includes(given)
        ? given
        : 'attachment';
  if (TEXT_TYPES.includes(contentType) && disposition === 'inline') return undefined;
  const fileName = node.filename === false || node.filename === '' ? undefined : node.filename;
  // mailparser guesses the type of an octet-stream from its name
  const guessed =
    contentType === 'application/octet-stream' && fileName !== undefined
      ? libmime.detectMimeType(fileName) || 'application/octet-stream'
      : contentType;
  return { contentType: declaredType(guessed), fileName };
}

/**
 * The subject as mailparser reads it: each Subject field unfolded, trimmed and decoded
 * (RFC 2047); empty ones are dropped, and the last of the others counts.
 */
function subjectOf(node: MimeNode): string {
  const lines = node.headers === false ? [] : node.headers.getList();
  let subject = '';
  for (const line of lines) {
    if (line.key !== 'subject') continue;
    const raw = Buffer.from(libmime.decodeHeader(line.line).value.trim(), 'binary').toString();
    let value = raw;
    try {
      value = libmime.decodeWords(raw);
    } catch {
      // kept as is, as mailparser does
    }
    if (value !== '') subject = value;
  }
  return subject;
}

function isChunk(item: unknown): item is { readonly type: 'data' | 'body'; readonly value: Buffer } {
  return typeof item === 'object' && item !== null && 'type' in item && 'value' in item && Buffer.isBuffer(item.value);
}

function hasCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === code;
}
