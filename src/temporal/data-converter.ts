/**
 * The data converter of every Temporal client and worker of the service: the failure converter that
 * puts failure messages into payloads, and, when keys are configured, the encrypting payload codec.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type PayloadKeyring } from '../security/payload-codec.js';

/** Path of the failure converter module, for the worker (loaded with require) and the workflow bundle. */
export function failureConverterPath(): string {
  const js = fileURLToPath(new URL('../shared/failure-converter.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('../shared/failure-converter.ts', import.meta.url));
}

/** Temporal's data converter with our failure converter and, given a keyring, encryption. */
export function createDataConverter(keyring: PayloadKeyring | undefined): DataConverter {
  return {
    failureConverterPath: failureConverterPath(),
    payloadCodecs: keyring ? [new AesGcmPayloadCodec(keyring)] : [],
  };
}
