/**
 * Where the worker finds the signing secrets of each owner when it sends a callback: a JSON file
 * (`WEBHOOK_SECRETS_FILE`, re-read when it changes, so secrets rotate without a restart) and the
 * `default` owner's secrets from `WEBHOOK_SECRET`. Secrets never enter workflow or activity inputs:
 * Temporal's history is readable in the Web UI.
 *
 * File format: `{"owners": {"orders": ["whsec_new", "whsec_old"]}}`; the first secret of a list is
 * the current one, every listed secret signs each callback while they overlap.
 */
import { readFileSync, statSync } from 'node:fs';
import { DEFAULT_OWNER } from '../shared/owner.js';
import { isWebhookSecret } from './webhook-signature.js';

export interface WebhookSecretsFile {
  /** Owner → secrets; without a prototype, so an owner named `constructor` or `toString` is just an owner. */
  owners: Record<string, string[]>;
}

export class WebhookSecretsError extends Error {
  override name = 'WebhookSecretsError';
}

/** Parses and validates a secrets file's text; the message never quotes a secret. */
export function parseSecretsFile(text: string, path: string): WebhookSecretsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new WebhookSecretsError(`${path} is not JSON: ${(err as Error).message}`);
  }
  const owners = (parsed as { owners?: unknown } | null)?.owners;
  if (typeof owners !== 'object' || owners === null || Array.isArray(owners)) {
    throw new WebhookSecretsError(`${path}: expected {"owners": {"<owner>": ["whsec_..."]}}`);
  }
  for (const [owner, secrets] of Object.entries(owners)) {
    if (!Array.isArray(secrets) || !secrets.every((s) => typeof s === 'string' && isWebhookSecret(s))) {
      throw new WebhookSecretsError(
        `${path}: owners.${owner} must be a list of whsec_ secrets (base64 of 24 to 64 bytes)`,
      );
    }
  }
  return { owners: Object.assign(Object.create(null) as Record<string, string[]>, owners) };
}

export interface WebhookSecretsOptions {
  defaultSecrets?: readonly string[];
  secretsFile?: string;
  /** How often, at most, the file's modification time is checked. @defaultValue 1000 */
  recheckMs?: number;
}

export class WebhookSecrets {
  private readonly defaultSecrets: readonly string[];
  private readonly path: string | undefined;
  private readonly recheckMs: number;
  /** Secrets by owner: a Map, so that no owner name can reach an object's prototype. */
  private owners: ReadonlyMap<string, readonly string[]> = new Map();
  private mtimeMs = -1;
  private checkedAt = 0;

  constructor(options: WebhookSecretsOptions = {}) {
    this.defaultSecrets = options.defaultSecrets ?? [];
    this.path = options.secretsFile;
    this.recheckMs = options.recheckMs ?? 1000;
    // A broken file stops the worker at boot; once running, a broken edit keeps the last good secrets.
    if (this.path) this.reload(true);
  }

  /**
   * The secrets that sign an owner's callbacks now, the current one first; empty when the owner has
   * none. Never another owner's: a callback signed with `default`'s secret would verify at
   * `default`'s receivers, which would accept what was meant for someone else. The `default` owner's
   * come from the file, then WEBHOOK_SECRET; every other owner's from the file only (`npm run keys
   * -- create` mints one for a new owner). An owner without any is a configuration gap: the
   * callback is held, not sent and not counted as an attempt (src/activities/callback.ts).
   */
  secretsFor(owner: string = DEFAULT_OWNER): readonly string[] {
    if (this.path && Date.now() - this.checkedAt >= this.recheckMs) this.reload(false);
    const own = this.owners.get(owner);
    if (own && own.length > 0) return own;
    return owner === DEFAULT_OWNER ? this.defaultSecrets : [];
  }

  /** Whether any secret is configured at all (the worker warns at boot when none is). */
  get configured(): boolean {
    return this.defaultSecrets.length > 0 || [...this.owners.values()].some((list) => list.length > 0);
  }

  private reload(strict: boolean): void {
    const path = this.path!;
    this.checkedAt = Date.now();
    try {
      const { mtimeMs } = statSync(path);
      if (mtimeMs === this.mtimeMs) return;
      this.owners = new Map(Object.entries(parseSecretsFile(readFileSync(path, 'utf8'), path).owners));
      this.mtimeMs = mtimeMs;
    } catch (err) {
      if (strict) {
        throw err instanceof WebhookSecretsError
          ? err
          : new WebhookSecretsError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
}

/** The owners among `owners` that have no signing secret: their callbacks would be held. */
export function ownersWithoutSigningSecret(owners: readonly string[], secrets: WebhookSecrets): string[] {
  return [...new Set(owners)].filter((owner) => secrets.secretsFor(owner).length === 0).sort();
}
