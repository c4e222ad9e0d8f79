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
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { parseSecretsFile, type WebhookSecretsFile } from '../security/webhook-secrets.js';
import { mintWebhookSecret } from '../security/webhook-signature.js';

const OWNER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function read(path: string): WebhookSecretsFile {
  return existsSync(path) ? parseSecretsFile(readFileSync(path, 'utf8'), path) : { owners: {} };
}

/** Written whole and renamed into place, so the worker never reads half a file. */
function write(path: string, file: WebhookSecretsFile): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

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
      const secret = mintWebhookSecret();
      if (path) {
        const file = read(path);
        file.owners[owner!] = [secret, ...(file.owners[owner!] ?? [])];
        write(path, file);
        console.error(
          `added to ${path}: owner ${owner} now signs with ${file.owners[owner!]!.length} secret(s), this one first`,
        );
      } else {
        console.error('no --file and no WEBHOOK_SECRETS_FILE: the secret is only printed');
      }
      console.log(secret);
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
