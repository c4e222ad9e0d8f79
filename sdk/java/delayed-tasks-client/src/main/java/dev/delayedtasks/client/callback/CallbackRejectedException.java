package dev.delayedtasks.client.callback;

/** A callback whose signature, timestamp or body is not acceptable. */
public final class CallbackRejectedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final RejectionReason reason;

  public CallbackRejectedException(RejectionReason reason, String message) {
    this(reason, message, null);
  }

  public CallbackRejectedException(RejectionReason reason, String message, Throwable cause) {
    super(reason.wireName() + ": " + message, cause);
    this.reason = reason;
  }

  public RejectionReason reason() {
    return reason;
  }
}
