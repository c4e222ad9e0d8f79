/**
 * The Redis and PostgreSQL servers of the store tests: URLs from DTS_TEST_REDIS_URL and
 * DTS_TEST_PG_URL (test.sh starts both through scripts/local-server.sh). Without them the store
 * tests are skipped, except under CI=true, where that is a failure.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { expect, it } from 'vitest';

export const { DTS_TEST_REDIS_URL: REDIS_URL, DTS_TEST_PG_URL: PG_URL } = process.env;

if (process.env.CI === 'true') {
  it('the store servers are given under CI', () => {
    expect(REDIS_URL, 'DTS_TEST_REDIS_URL').toBeTruthy();
    expect(PG_URL, 'DTS_TEST_PG_URL').toBeTruthy();
  });
}

export function redisClient(): Redis {
  return new Redis(REDIS_URL ?? '', { lazyConnect: false, maxRetriesPerRequest: 1 });
}

export function pgPool(max = 20): pg.Pool {
  return new pg.Pool({ connectionString: PG_URL, max });
}
