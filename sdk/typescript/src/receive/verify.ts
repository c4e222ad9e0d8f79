/**
 * Standard Webhooks verification of a callback: HMAC-SHA256 over `{id}.{timestamp}.{raw body}`
 * keyed with each `whsec_` secret, `v1,` signatures only, constant-time compare, timestamp tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type RejectionReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_secret'
  | 'invalid_body';

/** A callback refused: `reason` is one of the stable strings every SDK uses. */
export class CallbackRejectedError extends Error {
  override readonly name = 'CallbackRejectedError';

  constructor(
    readonly reason: RejectionReason,
    message: string = reason,
  ) {
    super(message);
  }
}

/** Headers as node:http, Fastify, `fetch`'s `Headers` or a plain object hold them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifierOptions {
  /** `whsec_<base64>` secrets; while they rotate, any of them may have signed. */
  secrets: readonly string[];
  /** Largest difference between the timestamp and now, either way. @defaultValue 300 */
  toleranceSeconds?: number;
  /** The clock, in ms since the epoch (tests inject one). @defaultValue Date.now */
  now?: () => number;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Checks the Standard Webhooks signature of a callback (the same name in every SDK). */
export class WebhookVerifier {
  private readonly keys: Buffer[] | undefined;
  private readonly toleranceSeconds: number;
  private readonly now: () => number;

  constructor(options: VerifierOptions) {
    this.toleranceSeconds = options.toleranceSeconds ?? 300;
    this.now = options.now ?? Date.now;
    this.keys = options.secrets.every((secret) => secret.startsWith('whsec_') && BASE64.test(secret.slice(6)))
      ? options.secrets.map((secret) => Buffer.from(secret.slice(6), 'base64'))
      : undefined;
  }

  /**
   * Throws CallbackRejectedError unless one of the secrets signed exactly these bytes; returns the
   * signed `webhook-id`, the key to deduplicate on.
   */
  verify(headers: HeaderSource, body: string | Uint8Array): string {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) throw new CallbackRejectedError('missing_header');
    if (!this.keys || this.keys.length === 0) {
      throw new CallbackRejectedError('invalid_secret', 'secrets must be whsec_<base64>');
    }
    if (!/^\d{1,15}$/.test(timestamp)) throw new CallbackRejectedError('invalid_timestamp');
    const skew = Math.floor(this.now() / 1000) - Number(timestamp);
    if (skew > this.toleranceSeconds) throw new CallbackRejectedError('timestamp_too_old');
    if (-skew > this.toleranceSeconds) throw new CallbackRejectedError('timestamp_too_new');

    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), Buffer.from(body)]);
    const offered = signatures
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => Buffer.from(entry.slice(3), 'base64'));
    for (const key of this.keys) {
      const expected = createHmac('sha256', key).update(signed).digest();
      if (
        offered.some(
          (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
        )
      ) {
        return id;
      }
    }
    throw new CallbackRejectedError('no_matching_signature');
  }
}
