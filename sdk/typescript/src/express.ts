/**
 * `@delayed-tasks/sdk/express`: the Express middleware, on a subpath of its own like the Fastify
 * plugin (Express is an optional peer).
 */
export {
  callbackMiddleware,
  RawBodyUnavailableError,
  type CallbackMiddleware,
  type ExpressRequest,
} from './receive/express.js';
