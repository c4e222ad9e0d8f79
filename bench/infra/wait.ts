/** Bounded polling and sleeping. */

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  what: string;
  /** Checked before each probe: a message means waiting is pointless (e.g. the process exited). */
  giveUp?: () => string | undefined;
}

/** Polls `probe` until it returns true, or throws after `timeoutMs` with the last error seen. */
export async function waitUntil(
  probe: () => boolean | Promise<boolean>,
  { timeoutMs, intervalMs = 200, what, giveUp }: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const reason = giveUp?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`);
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}
