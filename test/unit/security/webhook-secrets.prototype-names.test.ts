/**
 * Owner, task-type, header and key names that an object's prototype already answers to
 * (`constructor`, `__proto__`, `toString`, `hasOwnProperty`, `valueOf`...) are names like any other in
 * every map keyed by them: the signing secrets of an owner, the secrets file the CLIs edit, the
 * policies of a task type, the header secrets of a policy, the payload keys of the configuration.
 * Before, `constructor` found `Object`'s constructor as its "secrets" and dead-lettered its tasks
 * (`secrets.map is not a function`). The task of such an owner end to end is in
 * test/integration/owner-names.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addOwnerSecret, readSecretsFile } from '../../../src/cli/secrets-file.js';
import { loadConfig } from '../../../src/config/environment.js';
import { Policies } from '../../../src/task-types/policies.js';
import { HeaderSecrets } from '../../../src/security/header-secrets.js';
import { mintPayloadKey } from '../../../src/security/payload-codec.js';
import { WebhookSecrets } from '../../../src/security/webhook-secrets.js';
import { mintWebhookSecret } from '../../../src/security/webhook-signature.js';

/** Every name Object.prototype answers to, `__proto__` among them. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

function secretsFile(owners: Record<string, string[]>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'proto-names-')), 'secrets.json');
  writeFileSync(path, JSON.stringify({ owners }));
  return path;
}

describe('names an object prototype answers to', () => {
  it('are the ones this test means', () => {
    expect(PROTOTYPE_NAMES).toEqual(
      expect.arrayContaining(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']),
    );
  });

  it.each(PROTOTYPE_NAMES)('%s: an owner without secrets has none (its callbacks are held)', (owner) => {
    const secrets = new WebhookSecrets({ secretsFile: secretsFile({ orders: [mintWebhookSecret()] }) });
    expect(secrets.secretsFor(owner)).toEqual([]);
  });

  it.each(PROTOTYPE_NAMES)('%s: an owner with secrets in the file signs with them', (owner) => {
    const secret = mintWebhookSecret();
    // Written as text: JSON.parse makes "__proto__" an own key, as a file on disk would.
    const path = join(mkdtempSync(join(tmpdir(), 'proto-names-')), 'secrets.json');
    writeFileSync(path, `{"owners": {${JSON.stringify(owner)}: [${JSON.stringify(secret)}]}}`);
    const secrets = new WebhookSecrets({ secretsFile: path });
    expect(secrets.secretsFor(owner)).toEqual([secret]);
    expect(secrets.secretsFor('orders')).toEqual([]);
  });

  it.each(PROTOTYPE_NAMES)('%s: the CLIs mint a secret for such an owner into the file', (owner) => {
    const path = secretsFile({});
    expect(readSecretsFile(path).owners[owner]).toBeUndefined();
    const first = addOwnerSecret(path, owner);
    const second = addOwnerSecret(path, owner);
    expect(second.count).toBe(2);
    expect(readSecretsFile(path).owners[owner]).toEqual([second.secret, first.secret]);
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).owners)).toEqual([owner]);
  });

  it.each(PROTOTYPE_NAMES)('%s: a task type of that name is undeclared in a strict policy file', (name) => {
    const policies = new Policies({ strict: true, taskTypes: { orders: {} } });
    expect(policies.forType(name)).toBeUndefined();
    expect(new Policies({ taskTypes: { orders: { concurrency: 7 } } }).forType(name)?.name).toBe('_default');
  });

  it('a task type named constructor is declared like any other', () => {
    const policies = new Policies({ strict: true, taskTypes: { constructor: { concurrency: 3 } } });
    expect(policies.forType('constructor')).toMatchObject({ name: 'constructor', concurrency: 3 });
  });

  it.each(PROTOTYPE_NAMES)('%s: a header secret of that name is sent under it', async (name) => {
    const resolved = await new HeaderSecrets((variable) => (variable === 'V' ? 'value' : undefined)).resolve(
      JSON.parse(`{${JSON.stringify(name)}: {"env": "V"}}`) as Record<string, { env: string }>,
    );
    expect(Object.entries(resolved)).toEqual([[name.toLowerCase(), 'value']]);
  });

  it.each(['constructor', 'toString', 'valueOf'])(
    '%s: PAYLOAD_ENCRYPTION_CURRENT_KEY_ID must name a configured key',
    (name) => {
      expect(() =>
        loadConfig({
          PAYLOAD_ENCRYPTION_KEYS: `k1:${mintPayloadKey()}`,
          PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: name,
        }),
      ).toThrow(/PAYLOAD_ENCRYPTION_CURRENT_KEY_ID must name one of the keys/);
    },
  );
});
