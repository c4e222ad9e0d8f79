/**
 * Environment every integration test starts from, in-process (harness.ts) or as child processes
 * (processes.ts). The receivers listen on loopback, which the SSRF guard refuses by default: the
 * tests allow loopback explicitly, here and only here. Every owner the tests use has a signing
 * secret of its own (an owner without one is held, never signed with another owner's).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Signing secret of the `default` owner (tests verify signatures with it). */
export const TEST_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Signing secrets of the other owners the tests create tasks for (WEBHOOK_SECRETS_FILE). */
export const TEST_OWNER_SECRETS: Readonly<Record<string, string>> = {
  orders: 'whsec_b3JkZXJzLW93bmVyLXRlc3Qtc2VjcmV0LTAx',
  billing: 'whsec_YmlsbGluZy1vd25lci10ZXN0LXNlY3JldC0w',
  slow: 'whsec_c2xvdy1vd25lci10ZXN0LXNlY3JldC0wMDAw',
  ops: 'whsec_b3BzLW93bmVyLXRlc3Qtc2VjcmV0LTAwMDAw',
  metered: 'whsec_bWV0ZXJlZC1vd25lci10ZXN0LXNlY3JldC0w',
  alice: 'whsec_YWxpY2Utb3duZXItdGVzdC1zZWNyZXQtMDAw',
  bob: 'whsec_Ym9iLW93bmVyLXRlc3Qtc2VjcmV0LTAwMDAw',
};

const secretsFile = join(mkdtempSync(join(tmpdir(), 'test-webhook-secrets-')), 'secrets.json');
writeFileSync(
  secretsFile,
  JSON.stringify({
    owners: Object.fromEntries(Object.entries(TEST_OWNER_SECRETS).map(([o, s]) => [o, [s]])),
  }),
);

export const TEST_ENV: Readonly<Record<string, string>> = {
  CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  WEBHOOK_SECRETS_FILE: secretsFile,
  // No load balancer waits for a test's API to leave rotation: it closes at once on SIGTERM.
  SHUTDOWN_NOT_READY_SECONDS: '0',
};
