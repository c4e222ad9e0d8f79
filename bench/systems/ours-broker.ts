/**
 * Our service with broker delivery: each task is created with `delivery: {mode: 'broker'}` naming a
 * broker declared in BROKERS_FILE (bench/infra/local-brokers.ts), so when it is due the worker
 * publishes its envelope and the task succeeds on the broker's confirm. One consumer in this process
 * reads each message with the broker's Node client (the one the service itself depends on) and runs
 * its handler (ConsumerSystem: the POST to the receiver). ours-redis, ours-rabbitmq and ours-kafka
 * differ only in their BrokerClient.
 */
import type { BrokerServer, LocalBroker } from '../infra/local-brokers.js';
import type { ProcessRef } from '../infra/memory.js';
import { ConsumerSystem, deliveryRequest, type DueTask } from './consumer-system.js';
import type { OursStack } from './ours-stack.js';
import type { BenchTask, SystemName } from './system.js';

/** A running consumer of one destination. */
export interface BrokerConsumer {
  /** The destination fields of each task's delivery (`stream`, `exchange` and `routingKey`, `topic`). */
  readonly target: Record<string, string>;
  /** Stops reading and removes what `consume` declared. */
  stop(): Promise<void>;
}

/** How the benchmark reads one kind of broker. */
export interface BrokerClient {
  readonly server: BrokerServer;
  /**
   * Declares `destination` (the stream, queue or topic) on the broker at `url` and starts reading it
   * from its start; `handle` gets each message's body, and the message is acknowledged once it resolves.
   */
  consume(url: string, destination: string, handle: (body: string) => Promise<void>): Promise<BrokerConsumer>;
}

export class OursBroker extends ConsumerSystem {
  private consumer: BrokerConsumer | undefined;

  private constructor(
    readonly name: SystemName,
    stack: OursStack,
    private readonly broker: LocalBroker,
  ) {
    super(stack, 64);
  }

  /** Starts `client`'s consumer on a destination of its own (new, so empty): then tasks can be created. */
  static async start(name: SystemName, stack: OursStack, client: BrokerClient): Promise<OursBroker> {
    const system = new OursBroker(name, stack, stack.broker(client.server));
    system.consumer = await client.consume(
      system.broker.url,
      `bench.${name}.${Date.now().toString(36)}`,
      (body) => system.handleMessage(body),
    );
    return system;
  }

  protected request(task: BenchTask) {
    if (!this.consumer) throw new Error(`${this.name} has no consumer`);
    return deliveryRequest(task, { mode: 'broker', broker: this.broker.server, ...this.consumer.target });
  }

  private handleMessage(body: string): Promise<void> {
    return this.handle(JSON.parse(body) as DueTask);
  }

  /** Ours' processes and the broker's server. */
  override processes(): ProcessRef[] {
    return [
      ...this.stack.processes(),
      // RabbitMQ's Erlang VM runs helpers (erl_child_setup, inet_gethost): count their CPU too.
      { role: this.broker.server, pid: this.broker.pid, kind: 'store', tree: true },
    ];
  }

  protected async stopConsumers(): Promise<void> {
    await this.consumer?.stop();
  }
}
