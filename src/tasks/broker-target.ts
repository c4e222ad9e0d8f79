/**
 * A create's broker target, checked against the operator's declarations (src/config/brokers.ts): the
 * broker must be declared, its owner list must name the task's owner, and the destination must be one
 * that owner may name. Otherwise 400 INVALID_ARGUMENT naming the field, and nothing is started. The
 * task stores the broker's name, never a host: a task cannot make the service connect anywhere else.
 */
import type { CreateTaskBody } from '../contract/tasks.js';
import { destinationAllowed, type BrokerDeclarations } from '../config/brokers.js';
import { ApiError, ErrorCode, invalidArgument } from '../errors/catalog.js';
import type { BrokerDelivery, BrokerKind } from '../shared/delivery.js';

type BrokerRequest = Extract<NonNullable<CreateTaskBody['delivery']>, { mode: 'broker' }>;

/** The destination field of each kind, and the fields only that kind takes. */
const KIND_FIELDS: Readonly<
  Record<BrokerKind, { destination: keyof BrokerRequest; own: readonly string[] }>
> = {
  'redis-streams': { destination: 'stream', own: ['stream', 'maxLen'] },
  rabbitmq: { destination: 'exchange', own: ['exchange', 'routingKey'] },
  kafka: { destination: 'topic', own: ['topic', 'key'] },
};
const TARGET_FIELDS = ['stream', 'maxLen', 'exchange', 'routingKey', 'topic', 'key'] as const;

export function checkBrokerDelivery(
  body: Pick<CreateTaskBody, 'callbackUrl'>,
  delivery: BrokerRequest,
  owner: string,
  brokers: BrokerDeclarations,
): BrokerDelivery {
  if (body.callbackUrl !== undefined) {
    throw new ApiError(ErrorCode.InvalidArgument, 'give either callbackUrl or delivery, not both', [
      { field: 'delivery', reason: 'cannot be combined with callbackUrl' },
      { field: 'callbackUrl', reason: 'cannot be combined with delivery' },
    ]);
  }
  const declared = brokers.get(delivery.broker);
  // An undeclared broker and one declared for other owners answer alike: no owner learns another's.
  const allowed = declared?.owners[owner];
  if (!declared || !allowed) {
    throw invalidArgument('delivery.broker', `${delivery.broker} is not a broker declared for this owner`);
  }
  const fields = KIND_FIELDS[declared.kind];
  for (const field of TARGET_FIELDS) {
    if (delivery[field] !== undefined && !fields.own.includes(field)) {
      throw invalidArgument(
        `delivery.${field}`,
        `is not a field of a ${declared.kind} broker (its fields: ${fields.own.join(', ')})`,
      );
    }
  }
  const destination = delivery[fields.destination];
  if (typeof destination !== 'string') {
    throw invalidArgument(`delivery.${fields.destination}`, `is required for a ${declared.kind} broker`);
  }
  if (!destinationAllowed(destination, allowed)) {
    throw invalidArgument(
      `delivery.${fields.destination}`,
      `${JSON.stringify(destination)} is not among the destinations this owner may name on ${delivery.broker}`,
    );
  }
  const { mode: _mode, ...target } = delivery;
  return { mode: 'broker', kind: declared.kind, ...target };
}
