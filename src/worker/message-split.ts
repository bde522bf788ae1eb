// One pass of mailsplit (the splitter mailparser is built on) over the raw message: each
// attachment's body, still encoded, as the views mailsplit hands over (no copy), and the message
// without those bodies (headers, text parts and boundaries byte for byte), small enough for
// mailparser to read the text, the subject and the attachments' names cheaply. Which parts are
// attachments follows mailparser's reading, as the listener's walk does (mime/mime-walk.ts).

import type { Transform } from 'node:stream';
import { MimeNode, Splitter } from '@zone-eu/mailsplit';
import { attachmentOf } from '../mime/mime-walk.js';

export interface EncodedPart {
  readonly contentType: string;
  readonly fileName: string | undefined;
  /** The part's Content-Transfer-Encoding as mailsplit reads it ('base64', 'quoted-printable', ...). */
  readonly encoding: string;
  /** The body as it arrived, in order. */
  readonly body: readonly Buffer[];
  /** mailparser's decoder for this part (libbase64, libqp or none). */
  readonly decoder: () => Transform;
}

export interface SplitMessage {
  /** The message with every attachment's body left out. */
  readonly withoutAttachments: Buffer;
  readonly attachments: readonly EncodedPart[];
}

/** Rejects as mailsplit does (EMAXLEN for its limits). */
export async function splitMessage(raw: Buffer): Promise<SplitMessage> {
  const splitter = new Splitter(); // mailparser's defaults
  const kept: Buffer[] = [];
  const attachments: EncodedPart[] = [];
  let current: Buffer[] | undefined;
  const done = collect(splitter, (item) => {
    if (item instanceof MimeNode) {
      current = undefined;
      kept.push(item.getHeaders());
      const part = attachmentOf(item);
      if (part === undefined) return;
      const body: Buffer[] = [];
      current = body;
      attachments.push({ ...part, encoding: item.encoding === false ? '' : item.encoding, body, decoder: () => item.getDecoder() });
    } else if (item.type === 'body' && current !== undefined) {
      current.push(item.value);
    } else {
      if (item.type === 'data') current = undefined;
      kept.push(item.value);
    }
  });
  splitter.end(raw);
  await done;
  return { withoutAttachments: Buffer.concat(kept), attachments };
}

type Chunk = { readonly type: 'data' | 'body'; readonly value: Buffer };

async function collect(splitter: Splitter, take: (item: MimeNode | Chunk) => void): Promise<void> {
  const items: AsyncIterable<unknown> = splitter; // what it yields is checked here
  for await (const item of items) {
    if (item instanceof MimeNode) take(item);
    else if (isChunk(item)) take(item);
  }
}

function isChunk(item: unknown): item is Chunk {
  return (
    typeof item === 'object' &&
    item !== null &&
    'type' in item &&
    (item.type === 'data' || item.type === 'body') &&
    'value' in item &&
    Buffer.isBuffer(item.value)
  );
}
