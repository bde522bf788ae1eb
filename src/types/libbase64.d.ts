// The part of libbase64 (mailparser's base64 decoder, through mailsplit) the tests compare with.
declare module 'libbase64' {
  import { Transform } from 'node:stream';

  export class Decoder extends Transform {}
}
