/** Starts the systems under test by name. */
import type { BrokerServer } from '../infra/local-brokers.js';
import { Bullmq } from './bullmq.js';
import { OursApi } from './ours-api.js';
import { OursBroker, type BrokerClient } from './ours-broker.js';
import { OursDirect } from './ours-direct.js';
import { kafka } from './ours-kafka.js';
import { OursPull } from './ours-pull.js';
import { rabbitmq } from './ours-rabbitmq.js';
import { redisStreams } from './ours-redis.js';
import type { OursStack } from './ours-stack.js';
import { SetTimeoutFloor } from './settimeout.js';
import { TemporalFloor } from './temporal-floor.js';
import {
  BROKER_SYSTEM_NAMES,
  type BrokerSystemName,
  type System,
  type SystemEnv,
  type SystemName,
} from './system.js';

const BROKER_CLIENTS: Record<BrokerSystemName, BrokerClient> = {
  'ours-redis': redisStreams,
  'ours-rabbitmq': rabbitmq,
  'ours-kafka': kafka,
};

const isBrokerSystem = (name: SystemName): name is BrokerSystemName =>
  (BROKER_SYSTEM_NAMES as readonly SystemName[]).includes(name);

/** The broker servers `names` deliver to, each once. */
export function brokerServersOf(names: readonly SystemName[]): BrokerServer[] {
  return [...new Set(names.filter(isBrokerSystem).map((name) => BROKER_CLIENTS[name].server))];
}

/** `ours` gives the stack shared by ours-api, ours-direct and temporal-floor (its server), starting it on first use. */
export async function startSystem(
  name: SystemName,
  env: SystemEnv,
  ours: () => Promise<OursStack>,
): Promise<System> {
  if (isBrokerSystem(name)) return OursBroker.start(name, await ours(), BROKER_CLIENTS[name]);
  switch (name) {
    case 'ours-api':
      return OursApi.start(await ours());
    case 'ours-pull':
      return OursPull.start(await ours(), env.pullMax);
    case 'ours-direct':
      return OursDirect.start(await ours());
    case 'temporal-floor':
      return TemporalFloor.start(env, await ours());
    case 'bullmq':
      return Bullmq.start(env);
    case 'settimeout':
      return SetTimeoutFloor.start(env);
  }
}
