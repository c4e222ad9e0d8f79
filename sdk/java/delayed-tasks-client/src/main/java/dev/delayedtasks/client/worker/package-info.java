/**
 * {@link dev.delayedtasks.client.worker.PullWorker}: the worker shell of pull delivery (lease,
 * extend while the handler runs, ack, nack, release on shutdown).
 */
package dev.delayedtasks.client.worker;
