/**
 * What every HTTP server of this project answers when Node's parser gives up on a request before
 * any handler runs (a request line or headers over Node's limit, a client that drips past the
 * headers or request timeout, bytes that are not HTTP): the API's error envelope with a code from the
 * catalog, as every other refusal, not Fastify's `{"error":"Request Timeout",...}` nor Node's empty
 * answer. The API passes it as Fastify's `clientErrorHandler`, the worker and the metrics port as
 * their server's 'clientError' listener.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, ErrorCode } from '../errors/catalog.js';

/** Node's error codes for a request it refuses before a handler, and the answer of each. */
function answerOf(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        ErrorCode.HeadersTooLarge,
        "the request line and headers are over the server's limit (Node's max-http-header-size, 16 KiB by default)",
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(ErrorCode.RequestTimeout, 'the request did not arrive in time; send it again');
    default:
      return new ApiError(ErrorCode.InvalidArgument, 'the request is not valid HTTP/1.1');
  }
}

/** Writes the envelope on `socket` and closes it; a reset or half-answered socket is only closed. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const unanswerable =
    error.code === 'ECONNRESET' ||
    error.code === 'EPIPE' ||
    !socket.writable ||
    // Part of an answer went out already (a kept-alive socket): no second status line on it.
    ('bytesWritten' in socket && (socket as { bytesWritten: number }).bytesWritten > 0);
  if (unanswerable) {
    socket.destroy();
    return;
  }
  const answer = answerOf(error.code);
  const body = JSON.stringify(answer.toBody());
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}

/** Has `server` answer its clients' errors with the envelope (a plain `http.Server`). */
export function answerClientErrors<T extends Server>(server: T): T {
  server.on('clientError', answerClientError);
  return server;
}
