package dev.delayedtasks.client;

/** Bodies the API answers, for tests. */
final class Fixtures {
  private Fixtures() {}

  static String task(String taskId, String status) {
    return """
        {"taskId":"%s","owner":"orders","taskType":"order.close","status":"%s",
         "executeAt":"2026-12-03T10:30:00.000Z","createdAt":"2026-12-03T10:00:00.000Z",
         "payload":{"orderId":"10023","big":12345678901234567890,"ratio":0.10000000000000000001},
         "payloadVersion":2,"callbackUrl":"http://127.0.0.1:9/cb","maxRetries":3,"timeoutMs":30000,
         "traceId":null,"priority":3,"attempts":1,
         "lastError":{"message":"HTTP 503","statusCode":503},
         "nextAttemptAt":"2026-12-03T10:31:00.000+00:00","firedAt":null,"completedAt":null,
         "attemptHistory":[{"attempt":1,"startedAt":"2026-12-03T10:30:00.000Z",
           "finishedAt":"2026-12-03T10:30:00.250Z","outcome":"RETRYABLE_ERROR","statusCode":503,
           "error":"HTTP 503"}]}
        """
        .formatted(taskId, status);
  }
}
