/** The receiver on node:http: a `(req, res)` listener, and the raw-body reading Express shares. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answer, createReceiver, type ReceiverOptions, type ReceiverResponse } from './handler.js';

/** A node:http `(req, res)` listener receiving callbacks (any path; route to it as you like). */
export function createNodeHandler(
  options: ReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const receive = createReceiver(options);
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    try {
      writeAnswer(res, await receive(req.headers, await readBody(req)));
    } catch {
      // The request broke off mid-body (or the store failed): never an unhandled rejection that
      // takes the server down. The sender retries a 500, as it does a dropped connection.
      if (res.headersSent) res.destroy();
      else writeAnswer(res, answer(500, { status: 'error' }));
    }
  };
}

/** The request's bytes as they came: the signature covers exactly these. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function writeAnswer(res: ServerResponse, { status, headers, body }: ReceiverResponse): void {
  res.writeHead(status, headers).end(JSON.stringify(body));
}
