package dev.delayedtasks.client.callback;

import java.util.Map;

/**
 * What a callback endpoint answers: write the status, headers and JSON body with your framework.
 *
 * @param status 200, 400, 401, 422, 500 or 503
 * @param headers {@code Content-Type: application/json}, and {@code Retry-After} on a 503 when the
 *     handler gave a delay
 * @param body {@code {"status": "handled" | "duplicate" | "refused" | "retry" | "failed" |
 *     "error"}}, with a {@code reason} for a refusal and for a task type without handler
 */
public record ReceiverResponse(int status, Map<String, String> headers, String body) {
  public ReceiverResponse {
    headers = Map.copyOf(headers);
  }
}
