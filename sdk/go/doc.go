// Package delayedtasks is the Go client of the delayed-task service.
//
// The sending side is a [Client]: create a task that fires after a delay or at a time, read its
// status, cancel, list (an iterator over every page), reschedule and replay it. Every call takes a
// [context.Context] first and fails with an [*DelayedTaskError] that [errors.As] finds.
//
// The receiving side turns a callback request into a typed [Callback]: [ParseCallback] reads the
// body without losing numbers, a [WebhookVerifier] checks its Standard Webhooks signature, and a
// [CallbackReceiver] is an [net/http.Handler] that dispatches by task type, answers each delivery
// with the status the service expects and skips deliveries it has already handled (an
// [IdempotencyStore], by default an [InMemoryIdempotencyStore]). It refuses unsigned callbacks
// unless built with [AllowUnsigned].
package delayedtasks
