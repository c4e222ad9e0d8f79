package dev.delayedtasks.client.callback;

/** Thrown by a handler: this callback can never succeed (answered 422; the task fails now). */
public class PermanentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PermanentException(String message) {
    super(message);
  }

  public PermanentException(String message, Throwable cause) {
    super(message, cause);
  }
}
