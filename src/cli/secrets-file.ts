/**
 * Reading and writing the webhook secrets file (`WEBHOOK_SECRETS_FILE`) for the two CLIs that edit
 * it: `webhook-secrets` (mint, rotate, retire) and `keys create` (a new owner gets its own secret).
 * Written whole and renamed into place, so the worker never reads half a file.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseSecretsFile, type WebhookSecretsFile } from '../security/webhook-secrets.js';
import { mintWebhookSecret } from '../security/webhook-signature.js';

export function readSecretsFile(path: string): WebhookSecretsFile {
  // Owners without a prototype (as parseSecretsFile gives them): `constructor` is an owner like any other.
  return existsSync(path)
    ? parseSecretsFile(readFileSync(path, 'utf8'), path)
    : { owners: Object.create(null) as WebhookSecretsFile['owners'] };
}

export function writeSecretsFile(path: string, file: WebhookSecretsFile): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** Mints a secret, makes it the owner's current one (older ones keep signing) and returns it. */
export function addOwnerSecret(path: string, owner: string): { secret: string; count: number } {
  const secret = mintWebhookSecret();
  const file = readSecretsFile(path);
  file.owners[owner] = [secret, ...(file.owners[owner] ?? [])];
  writeSecretsFile(path, file);
  return { secret, count: file.owners[owner].length };
}
