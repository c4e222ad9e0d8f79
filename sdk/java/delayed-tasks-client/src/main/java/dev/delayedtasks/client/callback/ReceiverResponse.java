package dev.delayedtasks.client.callback;

import java.util.Map;

/**
 * What a callback endpoint answers: write the status, headers and JSON body with your framework.
 *
 * @param status 200, 400, 401, 422, 500 or 503
 * @param headers extra headers ({@code Retry-After})
 * @param body a small JSON document
 */
public record ReceiverResponse(int status, Map<String, String> headers, String body) {
  public ReceiverResponse {
    headers = Map.copyOf(headers);
  }
}
