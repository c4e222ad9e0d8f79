/**
 * Lease tokens: what a consumer holds between a lease and its ack. Opaque, sealed with AES-256-GCM
 * under a key derived (HKDF-SHA256, label `lease-token`) from LEASE_TOKEN_KEY or the payload
 * encryption key, so any API replica with the same key opens a token another one sealed, and no one
 * without it can forge or alter one. A token names its owner; the routes refuse it to any other.
 *
 * Format: base64url of `version (1) | nonce (12) | ciphertext | tag (16)` of the JSON of `LeaseClaims`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { invalidArgument } from '../errors/catalog.js';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('delayed-tasks lease-token v1');

/** What a token carries: enough to settle the lease without any state of the process that leased it. */
export interface LeaseClaims {
  /** Owner of the task. */
  owner: string;
  /** The workflow id of the task (`<owner>/<taskId>` or the bare task id). */
  workflowId: string;
  /** The attempt the lease is for (the workflow's count). */
  attempt: number;
  /** The pull queue the task was leased from. */
  queue: string;
  /** The lease's length in seconds: `extend` renews it by as much. */
  leaseSeconds: number;
  /** Temporal's activity task token, base64. */
  taskToken: string;
}

export class LeaseTokens {
  private readonly key: Buffer;

  /** `secret`: the key material every API replica shares (at least 32 bytes). */
  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'lease-token', 32));
  }

  seal(claims: LeaseClaims): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(AAD);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), nonce, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The claims of a token this key sealed; 400 INVALID_ARGUMENT naming `leaseToken` otherwise. */
  open(token: string): LeaseClaims {
    const bytes = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url') : Buffer.alloc(0);
    if (bytes.length < 1 + NONCE_BYTES + TAG_BYTES + 2 || bytes[0] !== VERSION) throw malformed();
    const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    let text: string;
    try {
      text = Buffer.concat([
        decipher.update(bytes.subarray(1 + NONCE_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw malformed();
    }
    return JSON.parse(text) as LeaseClaims;
  }
}

function malformed() {
  return invalidArgument('leaseToken', 'is not a lease token this service issued (malformed or altered)');
}

/**
 * The key material of lease tokens: LEASE_TOKEN_KEY, else the current payload encryption key, else a
 * random key of this process (then only this process can settle its leases: say so at boot).
 */
export function leaseTokenSecret(
  tokenKey: string | undefined,
  payloadKey: Buffer | undefined,
): { secret: Buffer; source: 'LEASE_TOKEN_KEY' | 'payload encryption key' | 'random' } {
  if (tokenKey !== undefined) return { secret: Buffer.from(tokenKey, 'base64'), source: 'LEASE_TOKEN_KEY' };
  if (payloadKey !== undefined) return { secret: payloadKey, source: 'payload encryption key' };
  return { secret: randomBytes(32), source: 'random' };
}
