/**
 * The receiving side: {@link dev.delayedtasks.client.callback.WebhookVerifier} (Standard Webhooks
 * signatures on the raw bytes), {@link dev.delayedtasks.client.callback.Callback} (the body), and
 * {@link dev.delayedtasks.client.callback.CallbackReceiver}, the whole endpoint with its answers,
 * served on the JDK's {@code HttpServer} by {@link
 * dev.delayedtasks.client.callback.CallbackHttpHandler}.
 */
package dev.delayedtasks.client.callback;
