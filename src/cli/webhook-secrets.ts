/**
 * Mints and rotates the webhook signing secrets of owners in the secrets file the worker reads
 * (`WEBHOOK_SECRETS_FILE`, re-read within a second of a change, no restart):
 *
 *   npm run webhook-secrets -- create --owner orders [--file path]   # new current secret, old ones kept
 *   npm run webhook-secrets -- retire --owner orders [--keep 1]      # end the overlap: keep the newest
 *   npm run webhook-secrets -- list [--file path]                    # owners and fingerprints, no secrets
 *
 * `create` prints the new secret once, for the owner's receivers; without a file it only prints it.
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/environment.js';
import { mintWebhookSecret } from '../security/webhook-signature.js';
import { addOwnerSecret, readSecretsFile as read, writeSecretsFile as write } from './secrets-file.js';

const OWNER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      owner: { type: 'string' },
      file: { type: 'string' },
      keep: { type: 'string', default: '1' },
    },
  });
  const command = positionals[0];
  const path = values.file ?? loadConfig().webhooks.secretsFile;
  const owner = values.owner;
  if (command === 'create' || command === 'retire') {
    if (!owner || !OWNER_PATTERN.test(owner)) {
      console.error(`${command} needs --owner <name> (${OWNER_PATTERN.source})`);
      return 2;
    }
  }
  switch (command) {
    case 'create': {
      if (path) {
        const { secret, count } = addOwnerSecret(path, owner!);
        console.error(`added to ${path}: owner ${owner} now signs with ${count} secret(s), this one first`);
        console.log(secret);
      } else {
        console.error('no --file and no WEBHOOK_SECRETS_FILE: the secret is only printed');
        console.log(mintWebhookSecret());
      }
      return 0;
    }
    case 'retire': {
      const keep = Number(values.keep);
      if (!path || !Number.isInteger(keep) || keep < 1) {
        console.error('retire needs a secrets file (--file or WEBHOOK_SECRETS_FILE) and --keep >= 1');
        return 2;
      }
      const file = read(path);
      const before = file.owners[owner!] ?? [];
      file.owners[owner!] = before.slice(0, keep);
      write(path, file);
      console.error(`owner ${owner}: ${before.length} → ${file.owners[owner!]!.length} secret(s)`);
      return 0;
    }
    case 'list': {
      if (!path) {
        console.error('list needs a secrets file (--file or WEBHOOK_SECRETS_FILE)');
        return 2;
      }
      for (const [name, secrets] of Object.entries(read(path).owners)) {
        console.log(`${name}\t${secrets.map(fingerprint).join(' ')}`);
      }
      return 0;
    }
    default:
      console.error('usage: webhook-secrets create --owner <name> | retire --owner <name> [--keep 1] | list');
      return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
