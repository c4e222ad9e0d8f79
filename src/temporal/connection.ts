/**
 * How to reach Temporal, shared by the API's client and the worker: address, namespace, TLS, API key.
 */
import { readFileSync } from 'node:fs';
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
