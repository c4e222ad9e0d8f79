/**
 * `@delayed-tasks/sdk/fastify`: the Fastify plugin, on a subpath of its own so that the main entry
 * point's types never name Fastify (an optional peer a client-only project does not install).
 */
export { callbackPlugin, type CallbackPluginOptions } from './receive/fastify.js';
