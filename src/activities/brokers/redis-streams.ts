/**
 * Redis Streams: `XADD <stream> [MAXLEN ~ n] * body <json> idempotency-key <key> ...`. Redis answers
 * an XADD with the entry's id once the write is in the stream: that reply is the confirm. Consumers
 * read with XREADGROUP and dedupe on `idempotency-key` (a retry after a lost reply adds a second entry).
 */
import { Redis } from 'ioredis';
import type { BrokerDeclaration } from '../../config/brokers.js';
import { passwordOf, tlsFilesOf } from './connection-secrets.js';
import type { BrokerMessage, BrokerPublisher } from './publisher.js';

export function redisStreamsPublisher(declaration: BrokerDeclaration): BrokerPublisher {
  let client: Redis | undefined;
  const connect = (): Redis => {
    const redis = newClient();
    // Connection errors fail the publishes that meet them; the client reconnects on its own.
    redis.on('error', () => undefined);
    return redis;
  };
  const newClient = (): Redis => {
    const password = passwordOf(declaration);
    const tls = tlsFilesOf(declaration);
    return new Redis(declaration.url, {
      ...(declaration.username !== undefined && { username: declaration.username }),
      ...(password !== undefined && { password }),
      ...(tls && { tls }),
      // A broker that is down fails the attempt (the task's backoff retries it), not a queue in memory.
      maxRetriesPerRequest: 0,
      connectTimeout: 5000,
      lazyConnect: false,
    });
  };
  return {
    async publish(message: BrokerMessage, target): Promise<void> {
      client ??= connect();
      const trim = target.maxLen !== undefined ? ['MAXLEN', '~', String(target.maxLen)] : [];
      const fields = [['body', message.body], ...Object.entries(message.headers)].flat();
      await client.call('XADD', target.stream ?? '', ...trim, '*', ...fields);
    },
    async close(): Promise<void> {
      await client?.quit().catch(() => client?.disconnect());
    },
  };
}
