/**
 * The SQL inbox of docs/receivers.md: `node --import tsx docs/examples/receivers/inbox.ts` with
 * `DATABASE_URL` set. The business row (an order closed) and the key's mark commit in one
 * transaction; the same key again runs nothing; an effect that fails rolls back its row and the
 * mark together, so the retry runs it afresh. The keys stand for task ids (a handler keys the inbox
 * on the callback's `taskId`). In your project the import is `@delayed-tasks/sdk/pg`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { SqlIdempotencyStore } from '../../../sdk/typescript/src/stores/pg.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const store = new SqlIdempotencyStore(pool);
await store.migrate(); // the table delayed_tasks_idempotency
await pool.query('CREATE TABLE IF NOT EXISTS example_closed_orders (order_id text PRIMARY KEY)');

/** The handler's effect: the business row, written on the inbox's transaction. */
async function closeOrder(key: string, orderId: string, fail: boolean): Promise<string> {
  const client = await pool.connect();
  try {
    const done = await store.runInTransaction(client, key, async (tx) => {
      await tx.query('INSERT INTO example_closed_orders (order_id) VALUES ($1)', [orderId]);
      if (fail) throw new Error('the payment service is down');
    });
    return done.result; // COMMITTED, or DONE (a duplicate: nothing ran)
  } catch (err) {
    return `rolled back (${(err as Error).message})`;
  } finally {
    client.release();
  }
}

/** What the database holds for this key and order: the business row, the mark. */
async function state(key: string, orderId: string): Promise<string> {
  const row = await pool.query('SELECT 1 FROM example_closed_orders WHERE order_id = $1', [orderId]);
  const mark = await pool.query('SELECT state FROM delayed_tasks_idempotency WHERE key = $1', [key]);
  return `order row ${row.rowCount === 1 ? 'present' : 'absent'}, mark ${mark.rows[0]?.state ?? 'absent'}`;
}

const run = randomUUID().slice(0, 8);
const [a, b] = [`${run}-a`, `${run}-b`];
console.log(`order-${a}: ${await closeOrder(`order-${a}`, a, false)}; ${await state(`order-${a}`, a)}`);
console.log(`order-${a} again: ${await closeOrder(`order-${a}`, a, false)}; ${await state(`order-${a}`, a)}`);
console.log(
  `order-${b} failing: ${await closeOrder(`order-${b}`, b, true)}; ${await state(`order-${b}`, b)}`,
);
console.log(
  `order-${b} retried: ${await closeOrder(`order-${b}`, b, false)}; ${await state(`order-${b}`, b)}`,
);
await pool.end();
