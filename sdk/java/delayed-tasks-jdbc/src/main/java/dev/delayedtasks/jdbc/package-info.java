/**
 * {@link dev.delayedtasks.jdbc.SqlIdempotencyStore}: the idempotency store of a fleet in PostgreSQL
 * over plain JDBC, with the inbox that marks a key in the caller's own transaction. Artifact {@code
 * dev.delayedtasks:delayed-tasks-jdbc}.
 */
package dev.delayedtasks.jdbc;
