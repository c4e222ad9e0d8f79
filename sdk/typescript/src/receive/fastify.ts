/**
 * Fastify plugin receiving callbacks on `POST <path>`. Register it as is (not through
 * fastify-plugin): its raw-body JSON parser then stays inside its own encapsulation context.
 *
 *   app.register(callbackPlugin, { path: '/callbacks', secrets: [process.env.WEBHOOK_SECRET], handlers });
 */
import type { FastifyPluginAsync } from 'fastify';
import { createReceiver, type ReceiverOptions } from './handler.js';

export interface CallbackPluginOptions extends ReceiverOptions {
  /** @defaultValue '/callbacks' */
  path?: string;
}

export const callbackPlugin: FastifyPluginAsync<CallbackPluginOptions> = async (app, options) => {
  const receive = createReceiver(options);
  // Signatures cover the exact bytes: keep the body raw.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  );
  app.post(options.path ?? '/callbacks', async (request, reply) => {
    const { status, headers, body } = await receive(request.headers, request.body as Buffer);
    return reply.code(status).headers(headers).send(body);
  });
};
