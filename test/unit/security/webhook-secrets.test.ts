/**
 * Each owner's signing secrets.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownersWithoutSigningSecret, WebhookSecrets } from '../../../src/security/webhook-secrets.js';

describe('WebhookSecrets', () => {
  it("never signs an owner without secrets of its own with the default owner's", () => {
    const secrets = new WebhookSecrets({ defaultSecrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });
    expect(secrets.secretsFor('default')).toEqual(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(secrets.secretsFor('orders')).toEqual([]);
    expect(new WebhookSecrets().secretsFor('orders')).toEqual([]);
  });

  it('names the owners whose callbacks would be held (the API warns at boot)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.json');
    writeFileSync(file, JSON.stringify({ owners: { orders: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] } }));
    const secrets = new WebhookSecrets({
      defaultSecrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      secretsFile: file,
    });
    expect(ownersWithoutSigningSecret(['orders', 'default', 'billing', 'billing', 'ads'], secrets)).toEqual([
      'ads',
      'billing',
    ]);
  });

  it("never signs with another owner's secrets from the file either", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.json');
    writeFileSync(file, JSON.stringify({ owners: { default: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] } }));
    const secrets = new WebhookSecrets({ secretsFile: file });
    expect(secrets.secretsFor('default')).toEqual(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(secrets.secretsFor('billing')).toEqual([]);
  });
});
