/**
 * Environment every integration test starts from, in-process (harness.ts) or as child processes
 * (processes.ts). The receivers listen on loopback, which the SSRF guard refuses by default: the
 * tests allow loopback explicitly, here and only here.
 */

/** Signing secret of the `default` owner (tests verify signatures with it). */
export const TEST_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const TEST_ENV: Readonly<Record<string, string>> = {
  CALLBACK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  // `TASK_START_DELAY=true ./scripts/test.sh` runs every test with tasks started by a start delay.
  ...(process.env.TASK_START_DELAY ? { TASK_START_DELAY: process.env.TASK_START_DELAY } : {}),
};
