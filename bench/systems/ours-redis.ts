/**
 * ours-redis: broker delivery to a Redis Stream (`XADD`), read by one consumer of a consumer group
 * with ioredis: `XREADGROUP ... COUNT 256 BLOCK 1000 STREAMS <stream> >`, each entry's handler, `XACK`.
 */
import { Redis } from 'ioredis';
import { sleep } from '../infra/wait.js';
import type { BrokerClient } from './ours-broker.js';

const GROUP = 'bench';

type StreamAnswer = [stream: string, entries: [id: string, fields: string[]][]][] | null;

export const redisStreams: BrokerClient = {
  server: 'redis',
  async consume(url, stream, handle) {
    const client = new Redis(url, { maxRetriesPerRequest: null });
    client.on('error', (err: Error) => console.error(`ours-redis consumer: ${err.message}`));
    await client.xgroup('CREATE', stream, GROUP, '$', 'MKSTREAM');
    let stopped = false;
    const reading = (async () => {
      while (!stopped) {
        try {
          const answer = (await client.xreadgroup(
            'GROUP',
            GROUP,
            'bench-0',
            'COUNT',
            256,
            'BLOCK',
            1000,
            'STREAMS',
            stream,
            '>',
          )) as StreamAnswer;
          const entries = answer?.[0]?.[1] ?? [];
          if (entries.length === 0) continue;
          // The body is the first field (docs/brokers.md: `body <json> content-type ...`).
          await Promise.all(entries.map(([, fields]) => handle(fields[fields.indexOf('body') + 1] ?? '')));
          await client.xack(stream, GROUP, ...entries.map(([id]) => id));
        } catch (err) {
          if (stopped) return;
          console.error(`ours-redis consumer: ${err instanceof Error ? err.message : String(err)}`);
          await sleep(500);
        }
      }
    })();
    return {
      target: { stream },
      async stop() {
        stopped = true;
        // The read blocks for a second at most.
        await reading;
        await client.quit();
      },
    };
  },
};
