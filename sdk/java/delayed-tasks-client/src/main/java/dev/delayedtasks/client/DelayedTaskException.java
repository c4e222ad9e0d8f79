package dev.delayedtasks.client;

import java.util.List;
import java.util.Objects;

/**
 * The one exception of this SDK, carrying the code, the HTTP status, the details (field and reason)
 * and the request id: an error answered by the API, a check that refused the input before sending
 * (code {@link ErrorCode#INVALID_ARGUMENT}, status 0, message {@code "<field> <reason>"}), or a
 * network failure after the retries (code {@link ErrorCode#UNAVAILABLE}, status 0).
 */
public final class DelayedTaskException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final String rawCode;
  private final int status;
  private final List<ErrorDetail> details;
  private final String requestId;

  public DelayedTaskException(
      String rawCode,
      String message,
      int status,
      List<ErrorDetail> details,
      String requestId,
      Throwable cause) {
    super(message, cause);
    this.rawCode = Objects.requireNonNull(rawCode, "rawCode");
    this.code = ErrorCode.fromWire(rawCode);
    this.status = status;
    this.details = details == null ? List.of() : List.copyOf(details);
    this.requestId = requestId;
  }

  /**
   * An {@code INVALID_ARGUMENT} found before sending (no request made, status 0), with the message
   * {@code "<field> <reason>"}, e.g. {@code delaySeconds must not be negative}.
   */
  static DelayedTaskException invalidArgument(String field, String reason) {
    return invalidArgument(field, reason, null);
  }

  static DelayedTaskException invalidArgument(String field, String reason, Throwable cause) {
    return new DelayedTaskException(
        ErrorCode.INVALID_ARGUMENT.name(),
        field + " " + reason,
        0,
        List.of(new ErrorDetail(field, reason)),
        null,
        cause);
  }

  /** The code as an enum; {@link ErrorCode#UNKNOWN} when this SDK does not know it. */
  public ErrorCode code() {
    return code;
  }

  /** The code exactly as the server sent it ({@code UNKNOWN} when the body had none). */
  public String rawCode() {
    return rawCode;
  }

  /** The HTTP status, or 0 when no response was received. */
  public int status() {
    return status;
  }

  /** Field problems, empty when the error has none. */
  public List<ErrorDetail> details() {
    return details;
  }

  /** The {@code x-request-id} response header, or null. */
  public String requestId() {
    return requestId;
  }

  @Override
  public String toString() {
    return "DelayedTaskException{code="
        + rawCode
        + ", status="
        + status
        + ", message="
        + getMessage()
        + ", details="
        + details
        + (requestId == null ? "" : ", requestId=" + requestId)
        + "}";
  }
}
