/**
 * How to reach Temporal, shared by the API's client and the worker: address, namespace, TLS, API key.
 */
import { readFileSync } from 'node:fs';
import {
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { Config } from '../config.js';

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

const START_BATCH_OPERATION = '/temporal.api.workflowservice.v1.WorkflowService/StartBatchOperation';
const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * The API's gRPC interceptors: the SDK's retries for every call, except that a batch job Temporal
 * refuses because as many as it allows already run (RESOURCE_EXHAUSTED) is answered at once (429)
 * instead of being retried until one of them ends or the deadline turns it into a 503.
 */
export function apiInterceptors(): NonNullable<ConnectionOptions['interceptors']> {
  const defaults = defaultGrpcRetryOptions();
  const retrying = makeGrpcRetryInterceptor(defaults);
  const batchStart = makeGrpcRetryInterceptor({
    ...defaults,
    retryableDecider: (attempt, status) =>
      status.code !== GRPC_RESOURCE_EXHAUSTED && defaults.retryableDecider(attempt, status),
  });
  return [
    (options, nextCall) =>
      (options.method_definition.path === START_BATCH_OPERATION ? batchStart : retrying)(options, nextCall),
  ];
}
