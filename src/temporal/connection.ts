/**
 * How to reach Temporal, shared by the API's client and the worker: address, namespace, TLS, API key.
 */
import { readFileSync } from 'node:fs';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { Config } from '../config/environment.js';

export interface TemporalConnectionOptions {
  address: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
  apiKey?: string;
}

export function connectionOptions(temporal: Config['temporal']): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address: temporal.address };
  if (temporal.apiKey) options.apiKey = temporal.apiKey;
  if (temporal.tls) {
    const { serverName, caPath, certPath, keyPath } = temporal.tls;
    options.tls = {};
    if (serverName) options.tls.serverNameOverride = serverName;
    if (caPath) options.tls.serverRootCACertificate = readFileSync(caPath);
    if (certPath && keyPath)
      options.tls.clientCertPair = { crt: readFileSync(certPath), key: readFileSync(keyPath) };
  }
  return options;
}

type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];

const START_BATCH_OPERATION = '/temporal.api.workflowservice.v1.WorkflowService/StartBatchOperation';
const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * The API's retries: the SDK's retries of UNAVAILABLE and the like, minus
 * - any retry whose backoff would end past the call's deadline: the SDK's own interceptor sleeps on
 *   past it, so a 5 s deadline answered after up to 9.8 s with the server down, and a retry could
 *   fire after the connection was closed;
 * - a batch job Temporal refuses because as many as it allows already run (RESOURCE_EXHAUSTED): it
 *   is answered at once (429) instead of being retried until one of them ends or the deadline turns
 *   it into a 503.
 */
export function deadlineBoundRetries(): Interceptor {
  const defaults = defaultGrpcRetryOptions();
  return (options, nextCall) => {
    const deadline = options.deadline === undefined ? Infinity : new Date(options.deadline).getTime();
    const batchStart = options.method_definition.path === START_BATCH_OPERATION;
    let delayMs = 0;
    return makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => {
        if (batchStart && status.code === GRPC_RESOURCE_EXHAUSTED) return false;
        if (!defaults.retryableDecider(attempt, status)) return false;
        delayMs = defaults.delayFunction(attempt, status);
        return Date.now() + delayMs < deadline;
      },
      delayFunction: () => delayMs,
    })(options, nextCall);
  };
}

/** The API's connection: lazy, so that the API starts (and /readyz says 503) while Temporal is down. */
export function apiConnection(temporal: Config['temporal']): Connection {
  return Connection.lazy({ ...connectionOptions(temporal), interceptors: [deadlineBoundRetries()] });
}
