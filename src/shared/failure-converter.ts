/**
 * The failure converter of every Temporal client and worker of the service, and of the workflow
 * bundle: failure messages and stack traces go into an encoded payload, so the payload codec
 * encrypts them like any other data (a `lastError` can quote a receiver's answer). Plain
 * JavaScript on purpose: the SDK loads it by path with `require` (ES modules: Node >= 20.19), from
 * src/ as from dist/.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
