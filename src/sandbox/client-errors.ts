// The envelope for requests that never reach a route: the HTTP parser's refusals (a broken
// request line, an invalid header, a URL or headers over Node's header limit, a request that did
// not arrive in time), answered on the raw socket, and fastify's own router refusals (a malformed
// URL, a path segment over the router's limit), answered through its `frameworkErrors` hook.
// Both answer the same envelope as every other error, so a client reads one shape everywhere.
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorAnswer } from './error-answer.js';
import { type ErrorEnvelope, envelope } from './error-codes.js';

/** Node's `clientError` event: the error carries the parser's code (`HPE_…`) or a time-out's. */
export interface ClientError extends Error {
  readonly code?: string;
}

/** What the parser's refusal answers (pure). Undefined: nothing to answer (the peer is gone). */
export function clientErrorAnswer(code: string | undefined, traceId: string): ErrorEnvelope | undefined {
  if (code === 'ECONNRESET' || code === 'EPIPE') return undefined;
  // A client too slow to send its headers is not an invalid request: 408 lets a client retry.
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return envelope(408, 'RequestTimeout', 'the request did not arrive in time', traceId);
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return envelope(400, 'InvalidData', `the request line and headers are larger than ${maxHeaderSize} bytes`, traceId);
  }
  return envelope(400, 'InvalidData', `the request is not valid HTTP/1.1 (${code ?? 'unknown parser error'})`, traceId);
}

/** The server's `clientError` listener: writes the envelope on the socket and closes it. */
export function answerClientError(logger: FastifyBaseLogger): (error: ClientError, socket: Socket) => void {
  return (error, socket) => {
    const traceId = randomUUID();
    const answer = clientErrorAnswer(error.code, traceId);
    if (answer === undefined || socket.destroyed) {
      socket.destroy();
      return;
    }
    logger.info({ traceId, statusCode: answer.statusCode, errorCode: answer.errorCode, parserCode: error.code }, 'sandbox request refused');
    if (socket.writable) {
      const body = JSON.stringify(answer);
      const reason = STATUS_CODES[answer.statusCode] ?? 'Bad Request';
      socket.write(
        `HTTP/1.1 ${answer.statusCode} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.end();
    socket.destroySoon();
  };
}

/** fastify's `frameworkErrors`: the router's refusals, answered like any other error. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer = errorAnswer(error, request.id);
  request.log.info({ statusCode: answer.statusCode, errorCode: answer.errorCode, frameworkCode: error.code }, 'sandbox request refused');
  void reply.code(answer.statusCode).send(answer);
}
