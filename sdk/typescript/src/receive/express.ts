/**
 * Express middleware receiving callbacks. Mount it on the callback route before any JSON body
 * parser, which would consume the bytes the signature covers (`express.raw()` in front is fine):
 *
 *   app.post('/callbacks', callbackMiddleware({ secrets: [process.env.WEBHOOK_SECRET], handlers }));
 *
 * Typed with node:http's request and response, which Express's extend: the SDK's types never name
 * Express, an optional peer a project without it does not install.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReceiver, type ReceiverOptions } from './handler.js';
import { readBody, writeAnswer } from './node.js';

/** An Express request as far as this middleware reads it: `body` is set when a parser ran. */
export type ExpressRequest = IncomingMessage & { body?: unknown };

export type CallbackMiddleware = (
  req: ExpressRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** Thrown (passed to `next`) when a body parser consumed the request before the middleware. */
export class RawBodyUnavailableError extends Error {
  override readonly name = 'RawBodyUnavailableError';

  constructor() {
    super(
      'callbackMiddleware needs the raw request body: mount it before express.json() ' +
        "(or put express.raw({ type: 'application/json' }) in front of it)",
    );
  }
}

/** Answers POSTs; other methods go on to the next route (with `app.use`). */
export function callbackMiddleware(options: ReceiverOptions): CallbackMiddleware {
  const receive = createReceiver(options);
  return (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    rawBody(req)
      .then((body) => receive(req.headers, body))
      .then((answer) => writeAnswer(res, answer))
      .catch(next);
  };
}

async function rawBody(req: ExpressRequest): Promise<Buffer | string> {
  if (Buffer.isBuffer(req.body)) return req.body; // express.raw()
  if (typeof req.body === 'string') return req.body; // express.text()
  // Unread: read it (Express 4's parsers leave `{}` on a request they did not take).
  if (!req.readableEnded) return readBody(req);
  throw new RawBodyUnavailableError();
}
