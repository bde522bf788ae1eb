// Replaces: JSON.stringify of a request body (Base64Data.toJSON gives the same text).
// Proved by: test/unit/json-text.test.ts (the same JSON value as JSON.stringify's).
//
// A request body as JSON text, in ASCII pieces made as the request is written. Every Base64Data
// in the body's arrays and plain objects is left out of JSON.stringify (a marker string stands
// in for it) and its base64 goes where the marker was: base64 needs no JSON escaping, so
// JSON.stringify need not scan it. Neither the whole text nor a document's whole base64 is ever
// one string, nor the whole body one Buffer: for a 10 MB PDF either would be a fresh 13.7 MB
// object per call, and such large objects drive the worker's old-generation collections. The
// pieces are at most 64 Ki characters each, short-lived young-generation strings that
// http-fetch.ts writes to the socket as they come (docs/performance.md).
// The text is ASCII only (non-ASCII characters as \uXXXX escapes, which JSON allows), so that
// its bytes are its characters, one each: its length is its Content-Length, known before any
// base64 is made, and the socket takes it as latin1 without UTF-8 encoding.
import { randomUUID } from 'node:crypto';
import { Base64Data } from '../net/base64-data.js';
import { AsciiPiecesBody } from './ascii-pieces-body.js';

/** The most characters in one piece of the text (the base64 pieces are this long too). */
export const JSON_PIECE_CHARS = 64 * 1024;

export class JsonText {
  /** Characters, and bytes on the wire. */
  readonly length: number;

  /** `texts` has one more entry than `documents`: the JSON text before, between and after them. */
  constructor(
    private readonly texts: readonly string[],
    private readonly documents: readonly Base64Data[],
  ) {
    let length = 0;
    for (const text of texts) length += text.length;
    for (const document of documents) length += document.base64Length;
    this.length = length;
  }

  /** The text in pieces of at most JSON_PIECE_CHARS characters; each document's base64 is encoded as its pieces are asked for. */
  *pieces(): Generator<string, void, undefined> {
    for (const [index, text] of this.texts.entries()) {
      for (let at = 0; at < text.length; at += JSON_PIECE_CHARS) yield text.slice(at, at + JSON_PIECE_CHARS);
      yield* this.documents[index]?.base64Pieces() ?? [];
    }
  }

  /** The whole text as one string: for short bodies (no documents, or small ones). */
  toString(): string {
    if (this.documents.length === 0) return this.texts[0] ?? '';
    const parts: string[] = [];
    for (const [index, text] of this.texts.entries()) parts.push(text, this.documents[index]?.toString() ?? '');
    return parts.join('');
  }
}

/**
 * The body to send: a short text as one string (as cheap as a body can be: no document, or
 * small ones), a longer one as a stream of its pieces whose length is known up front.
 */
export function jsonBody(value: unknown): string | AsciiPiecesBody {
  const text = jsonText(value);
  return text.length <= JSON_PIECE_CHARS ? text.toString() : new AsciiPiecesBody(text.length, () => text.pieces());
}

export function jsonText(value: unknown): JsonText {
  const documents: Base64Data[] = [];
  // A fresh marker per body: no text of the letter can hold it by chance.
  const nonce = randomUUID();
  const markerOf = (index: number): string => `${nonce}:${index}`;
  // A copy of the body's arrays and plain objects with markers in place of the documents (no
  // replacer function: it would take JSON.stringify off its fast path for the rest of the text).
  const withMarkers = (field: unknown): unknown => {
    if (field instanceof Base64Data) return markerOf(documents.push(field) - 1);
    if (Array.isArray(field)) return field.map(withMarkers);
    if (typeof field !== 'object' || field === null || Object.getPrototypeOf(field) !== Object.prototype) return field;
    return Object.fromEntries(Object.entries(field).map(([name, inner]) => [name, withMarkers(inner)]));
  };
  const text = asciiOnly(JSON.stringify(withMarkers(value)));
  if (documents.length === 0) return new JsonText([text], []);

  // The markers appear in the order they were made (JSON.stringify keeps it), each inside quotes.
  const texts: string[] = [];
  let from = 0;
  documents.forEach((_document, index) => {
    const marker = markerOf(index);
    const at = text.indexOf(`"${marker}"`, from);
    if (at === -1) throw new Error('a document marker is missing from the JSON text');
    texts.push(text.slice(from, at + 1)); // up to and with the opening quote; the base64 comes next
    from = at + 1 + marker.length; // then the closing quote
  });
  texts.push(text.slice(from));
  return new JsonText(texts, documents);
}

/** JSON text with every character above U+007F as its \uXXXX escape (a pair for astral ones): the same JSON value. */
function asciiOnly(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
