/**
 * `npm run keys -- <command>` (in the image: `node dist/cli/keys.js <command>`): mints and edits the
 * API keys file. The secret of a key is printed once, by `create`, and stored nowhere: the file keeps
 * its SHA-256 only. Writes are atomic (temporary file + rename), so a running API never reads half a
 * file; it picks the change up on its own (file watch) or on SIGHUP.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SCOPES, type Scope } from '../auth/principal.js';
import {
  emptyKeysFile,
  hashKey,
  KeysFileError,
  mintKey,
  validateKeysFile,
  type KeyEntry,
  type KeysFile,
} from '../auth/keys.js';
import { loadConfig } from '../config/environment.js';
import { addOwnerSecret, readSecretsFile } from './secrets-file.js';

const USAGE = `usage: npm run keys -- <command> [options]

  create --owner <owner> --scopes <scope,...> [--task-types <type|prefix*,...>]
         [--callback-hosts <host|*.domain,...>] [--requests-per-minute <n>]
         [--expires <RFC 3339 time> | --expires-in-days <n>] [--description <text>] [--if-none]
      mint a key, add it to the file and print it (the only time it is shown)
  list                  every key: id, owner, scopes, limits, state (never a secret)
  disable <keyId>       refuse the key from now on (the API reloads the file by itself)
  enable <keyId>        accept a disabled key again

  --file <path>         the keys file (default: API_KEYS_FILE)
  scopes: ${SCOPES.join(', ')}  (admin: every scope, every owner, bulk operations)
  --if-none             create only when the file has no key yet (first start of a container)`;

export class UsageError extends Error {
  override name = 'UsageError';
}

function readFile(path: string, create: boolean): KeysFile {
  if (!existsSync(path)) {
    if (create) return emptyKeysFile();
    throw new UsageError(`no keys file at ${path}`);
  }
  return validateKeysFile(JSON.parse(readFileSync(path, 'utf8')));
}

function writeFile(path: string, file: KeysFile): void {
  validateKeysFile(file);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);

/** Where an owner's webhook signing secrets are (the worker's configuration), for `create`. */
export interface SigningSecrets {
  /** WEBHOOK_SECRETS_FILE: a new owner's secret is minted into it. */
  file: string | undefined;
  /** WEBHOOK_SECRET is set: the `default` owner has secrets without the file. */
  defaultOwnerHasSecret: boolean;
}

/**
 * A key for an owner with no signing secret of its own: mint one into the secrets file (printed
 * once, for the owner's receivers), or say that its callbacks will be held until one exists. Never
 * signed with another owner's secret (src/security/webhook-secrets.ts).
 */
function ownerSecretNote(owner: string, signing: SigningSecrets): string[] {
  if (owner === 'default' && signing.defaultOwnerHasSecret) return [];
  if (signing.file && (readSecretsFile(signing.file).owners[owner]?.length ?? 0) > 0) return [];
  if (!signing.file) {
    return [
      '',
      `Owner ${owner} has no webhook signing secret: its callbacks are held (not sent, no attempt counted) until one is`,
      `configured: set WEBHOOK_SECRETS_FILE and run npm run webhook-secrets -- create --owner ${owner}`,
    ];
  }
  const { secret } = addOwnerSecret(signing.file, owner);
  return [
    '',
    `Owner ${owner} had no webhook signing secret; one was minted into ${signing.file} (the worker reads it`,
    'within a second). Give it to the receivers of this owner, which verify callbacks with it:',
    '',
    secret,
  ];
}

/** Runs one command; returns what to print on stdout. */
export function runKeysCommand(
  argv: string[],
  defaultFile: string | undefined,
  now = new Date(),
  signing: SigningSecrets = { file: undefined, defaultOwnerHasSecret: false },
): string {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      owner: { type: 'string' },
      scopes: { type: 'string' },
      'task-types': { type: 'string' },
      'callback-hosts': { type: 'string' },
      'requests-per-minute': { type: 'string' },
      expires: { type: 'string' },
      'expires-in-days': { type: 'string' },
      description: { type: 'string' },
      'if-none': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) return USAGE;
  const path = values.file ?? defaultFile;
  if (!path) throw new UsageError('give --file <path> or set API_KEYS_FILE');

  switch (command) {
    case 'create': {
      const file = readFile(path, true);
      if (values['if-none'] && file.keys.length > 0) {
        // A volume from before owners signed with their own secrets: the owner still gets one.
        const note = values.owner ? ownerSecretNote(values.owner, signing) : [];
        return [`${path} already has ${file.keys.length} key(s); none minted`, ...note].join('\n');
      }
      if (!values.owner) throw new UsageError('create needs --owner');
      const scopes = list(values.scopes) ?? [];
      const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
      if (scopes.length === 0 || unknown.length > 0) {
        throw new UsageError(`--scopes takes a comma-separated list of ${SCOPES.join(', ')}`);
      }
      let expiresAt = values.expires;
      if (values['expires-in-days'] !== undefined) {
        const days = Number(values['expires-in-days']);
        if (!Number.isFinite(days) || days <= 0)
          throw new UsageError('--expires-in-days takes a positive number');
        expiresAt = new Date(now.getTime() + days * 86_400_000).toISOString();
      }
      const { keyId, key } = mintKey();
      const entry: KeyEntry = {
        id: keyId,
        owner: values.owner,
        hash: hashKey(key),
        scopes: scopes as Scope[],
        createdAt: now.toISOString(),
      };
      const taskTypes = list(values['task-types']);
      const hosts = list(values['callback-hosts']);
      if (taskTypes) entry.allowedTaskTypes = taskTypes;
      if (hosts) entry.allowedCallbackHosts = hosts;
      if (values['requests-per-minute'] !== undefined) {
        entry.requestsPerMinute = Number(values['requests-per-minute']);
      }
      if (expiresAt !== undefined) entry.expiresAt = expiresAt;
      if (values.description !== undefined) entry.description = values.description;
      writeFile(path, { ...file, keys: [...file.keys, entry] });
      return [
        `API key ${keyId} for owner ${entry.owner} (${entry.scopes.join(', ')}) added to ${path}.`,
        'It is shown this once and stored only as a hash; keep it in your secret store:',
        '',
        key,
        '',
        `Use it as: curl -H 'Authorization: Bearer ${key.slice(0, 4 + keyId.length + 1)}...' ...`,
        ...ownerSecretNote(entry.owner, signing),
      ].join('\n');
    }
    case 'list': {
      const file = readFile(path, false);
      const rows = file.keys.map((entry) => {
        const state = entry.disabled
          ? 'disabled'
          : entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now.getTime()
            ? 'expired'
            : 'active';
        return [
          entry.id,
          entry.owner,
          entry.scopes.join(','),
          state,
          entry.expiresAt ?? '-',
          entry.allowedTaskTypes?.join(',') ?? '*',
          entry.allowedCallbackHosts?.join(',') ?? '*',
          entry.requestsPerMinute === undefined ? 'default' : String(entry.requestsPerMinute),
          entry.description ?? '',
        ];
      });
      const header = [
        'ID',
        'OWNER',
        'SCOPES',
        'STATE',
        'EXPIRES',
        'TASK TYPES',
        'CALLBACK HOSTS',
        'RPM',
        'DESCRIPTION',
      ];
      const table = [header, ...rows];
      const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      return table
        .map((row) =>
          row
            .map((cell, i) => cell.padEnd(widths[i]!))
            .join('  ')
            .trimEnd(),
        )
        .join('\n');
    }
    case 'disable':
    case 'enable': {
      const [keyId] = rest;
      if (!keyId) throw new UsageError(`${command} needs a key id (see list)`);
      const file = readFile(path, false);
      const entry = file.keys.find((candidate) => candidate.id === keyId);
      if (!entry) throw new UsageError(`no key ${keyId} in ${path}`);
      if (command === 'disable') entry.disabled = true;
      else delete entry.disabled;
      // Either way, console sessions logged in before now end: re-enabling a key revives none.
      entry.sessionsNotBefore = now.toISOString();
      writeFile(path, file);
      return `API key ${keyId} (owner ${entry.owner}) ${command}d in ${path}`;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${USAGE}`);
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  try {
    const config = loadConfig();
    const signing = {
      file: config.webhooks.secretsFile,
      defaultOwnerHasSecret: config.webhooks.defaultSecrets.length > 0,
    };
    process.stdout.write(
      `${runKeysCommand(process.argv.slice(2), config.auth.keysFile, new Date(), signing)}\n`,
    );
  } catch (err) {
    const known = err instanceof UsageError || err instanceof KeysFileError || err instanceof TypeError;
    process.stderr.write(`${known ? (err as Error).message : String(err)}\n`);
    process.exit(2);
  }
}
