/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, spec 1.0.0): HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{raw body}`, sent as `v1,<base64>`, one per secret while
 * secrets rotate, space-separated. Secrets are `whsec_` + base64 of 24 to 64 random bytes.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Bytes of a secret `mintWebhookSecret` makes (the spec asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret. */
export function mintWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** `whsec_` and base64 of 24 to 64 bytes. */
export function isWebhookSecret(value: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match) return false;
  const bytes = Buffer.from(match[1]!, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** The HMAC key of a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new TypeError('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/**
 * The `webhook-id` of a task: stable across attempts, replays and resets, since it is derived from
 * the workflow id (the task id, or `<owner>/<taskId>`). Task ids may contain `.`, which the spec
 * forbids in an id (it delimits the signed content), so the id is a digest: `msg_` and 32 hex digits.
 */
export function webhookId(workflowId: string): string {
  return `msg_${createHash('sha256').update(workflowId).digest('hex').slice(0, 32)}`;
}

/** The `webhook-signature` header: one `v1,<base64>` per secret, space-separated. */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content).digest('base64')}`)
    .join(' ');
}
