package dev.delayedtasks.client.callback;

/**
 * Handles one task type's callbacks. Returning means success (200). Throw {@link
 * RetryableException} to ask for a retry (503), {@link PermanentException} to fail the task now
 * (422); any other exception is answered 500, which the service retries.
 */
@FunctionalInterface
public interface CallbackHandler {
  void handle(Callback callback) throws Exception;
}
