package dev.delayedtasks.client;

import java.util.HashMap;
import java.util.Map;

/**
 * Stable error codes of the API. A code this SDK does not know maps to {@link #UNKNOWN}; {@link
 * DelayedTaskException#rawCode()} still carries the string the server sent.
 */
public enum ErrorCode {
  INVALID_ARGUMENT,
  PAYLOAD_TOO_LARGE,
  UNAUTHENTICATED,
  PERMISSION_DENIED,
  TASK_NOT_FOUND,
  NOT_FOUND,
  TASK_CONFLICT,
  SCHEDULE_NOT_FOUND,
  SCHEDULE_CONFLICT,
  SCHEDULE_LIMIT_EXCEEDED,
  FAILED_PRECONDITION,
  METHOD_NOT_ALLOWED,
  UNSUPPORTED_MEDIA_TYPE,
  RESOURCE_EXHAUSTED,
  UNAVAILABLE,
  INTERNAL,
  /** The request did not arrive in time; sent before any route, nothing was done. */
  REQUEST_TIMEOUT,
  /** The request line or headers were too large; sent before any route. */
  HEADERS_TOO_LARGE,
  /** A lease token of another owner, or of no lease the server knows. */
  LEASE_NOT_FOUND,
  /** The lease expired: the task was retried or handed to another worker. */
  LEASE_EXPIRED,
  /** The task was cancelled while leased. */
  TASK_CANCELLED,
  /** A code from a newer server, or an error body that is not the API's JSON. */
  UNKNOWN;

  private static final Map<String, ErrorCode> BY_WIRE = new HashMap<>();

  static {
    for (ErrorCode code : values()) {
      BY_WIRE.put(code.name(), code);
    }
  }

  /** The code for a wire string, exact match only; {@link #UNKNOWN} for anything else. */
  public static ErrorCode fromWire(String raw) {
    return raw == null ? UNKNOWN : BY_WIRE.getOrDefault(raw, UNKNOWN);
  }
}
