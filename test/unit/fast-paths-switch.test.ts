// FAST_PATHS picks, for everything src/fast-paths replaces at run time, the replacement (on) or
// the stock library (off): what each of the boundary's functions hands the domain code.
import { PassThrough } from 'node:stream';
import { Splitter } from '@zone-eu/mailsplit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  countBase64Body,
  createDkimKeyCache,
  decodePlainBase64,
  enhanceSizeReply,
  jsonRequestBody,
  senderApiFetch,
  useFastPaths,
} from '../../src/fast-paths/index.js';
import { Base64Data } from '../../src/net/base64-data.js';

const noDns = (): Promise<unknown> => Promise.reject(Object.assign(new Error('no DNS here'), { code: 'ENOTFOUND' }));

/** 96,000 bytes of 0x01: their base64 is 128,000 characters of "AQEB", over one 64 Ki piece. */
const DOCUMENT = Buffer.alloc(96_000, 1);
const DOCUMENT_JSON = `{"parts":[{"base64Data":"${'AQEB'.repeat(32_000)}"}]}`;

/** A connection as smtp-server's validator answers an over-size SIZE= (its own text). */
function connectionRefusingSize() {
  return {
    _validateMailParams: (_parsed: unknown) => ({
      code: 552,
      message: 'Error: message exceeds fixed maximum message size 1024',
      enhancedCode: 'MESSAGE_TOO_BIG',
    }),
  };
}

afterAll(() => useFastPaths(true));

describe('FAST_PATHS=off', () => {
  it('hands out the stock libraries', () => {
    useFastPaths(false);
    expect(senderApiFetch()).toBe(globalThis.fetch);
    expect(jsonRequestBody({ parts: [{ base64Data: new Base64Data(DOCUMENT) }] })).toBe(DOCUMENT_JSON);
    expect(decodePlainBase64(Buffer.from('QUJD\r\n'))).toBeUndefined();
    expect(countBase64Body(() => new PassThrough())).toBeUndefined();
    expect(createDkimKeyCache(noDns)).toBeUndefined();
    expect(Reflect.get(Splitter, 'bodyFastPath')).toBe(false);
    const connection = connectionRefusingSize();
    enhanceSizeReply(connection, 1024);
    expect(connection._validateMailParams(undefined).message).toBe('Error: message exceeds fixed maximum message size 1024');
  });
});

describe('FAST_PATHS=on', () => {
  it('hands out the replacements', async () => {
    useFastPaths(true);
    expect(senderApiFetch()).not.toBe(globalThis.fetch);
    const body = jsonRequestBody({ parts: [{ base64Data: new Base64Data(DOCUMENT) }] });
    expect(typeof body).not.toBe('string');
    expect(await new Response(body).text()).toBe(DOCUMENT_JSON);
    expect(decodePlainBase64(Buffer.from('QUJD\r\n'))?.toString('latin1')).toBe('ABC');
    expect(countBase64Body(() => new PassThrough())).toBeDefined();
    expect(createDkimKeyCache(noDns)).toBeDefined();
    expect(Reflect.get(Splitter, 'bodyFastPath')).toBe(true);
    const connection = connectionRefusingSize();
    enhanceSizeReply(connection, 1024);
    expect(connection._validateMailParams(undefined).message).toBe('5.3.4 message size exceeds the maximum of 1024 bytes');
  });
});
