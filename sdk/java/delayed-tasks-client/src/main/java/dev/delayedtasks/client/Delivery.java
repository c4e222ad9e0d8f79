package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;

/**
 * How a due task reaches its service instead of a {@code callbackUrl} (a task names one or the
 * other): {@code pull}, leased by a worker ({@link dev.delayedtasks.client.worker.PullWorker}) from
 * a queue of its owner, or {@code broker}, published to a broker the operator declared (Redis
 * Streams {@code stream}/{@code maxLen}, RabbitMQ {@code exchange}/{@code routingKey}, Kafka {@code
 * topic}/{@code key}). A task read back may carry a mode this version does not know: {@code mode}
 * says which, the fields it knows are set. Unset components are null.
 *
 * @param mode {@code pull} or {@code broker} (or a newer mode on a task read back)
 * @param queue pull: the queue; null: the task's type
 * @param leaseSeconds pull: the lease's length and what an extend renews; null: 60 (the server's
 *     bounds are 5 to 3600 by default)
 * @param broker broker: the declared broker's name
 * @param stream broker (Redis Streams): the stream
 * @param maxLen broker (Redis Streams): XADD MAXLEN ~ this
 * @param exchange broker (RabbitMQ): the exchange ("" the default)
 * @param routingKey broker (RabbitMQ): the routing key; null: the task type
 * @param topic broker (Kafka): the topic
 * @param key broker (Kafka): the payload field keying the message
 * @param kind on a task read back: the broker's kind (redis-streams, rabbitmq, kafka); not sent
 */
public record Delivery(
    String mode,
    String queue,
    Integer leaseSeconds,
    String broker,
    String stream,
    Integer maxLen,
    String exchange,
    String routingKey,
    String topic,
    String key,
    String kind) {
  /** Pull from the queue named like the task type, leases of 60 s. */
  public static Delivery pull() {
    return pull(null, null);
  }

  /** Pull from {@code queue}, leases of {@code leaseSeconds} (null: the defaults). */
  public static Delivery pull(String queue, Integer leaseSeconds) {
    return new Delivery(
        "pull", queue, leaseSeconds, null, null, null, null, null, null, null, null);
  }

  /** Publish to a Redis stream of the declared {@code broker}. */
  public static Delivery redisStream(String broker, String stream) {
    return new Delivery("broker", null, null, broker, stream, null, null, null, null, null, null);
  }

  /** Publish to a RabbitMQ exchange of the declared {@code broker} (routing key: the task type). */
  public static Delivery rabbitmq(String broker, String exchange, String routingKey) {
    return new Delivery(
        "broker", null, null, broker, null, null, exchange, routingKey, null, null, null);
  }

  /** Publish to a Kafka topic of the declared {@code broker}. */
  public static Delivery kafka(String broker, String topic) {
    return new Delivery("broker", null, null, broker, null, null, null, null, topic, null, null);
  }

  ObjectNode toBody() {
    ObjectNode body = Payloads.newObject().put("mode", mode);
    putIfSet(body, "queue", queue);
    Payloads.putIfSet(body, "leaseSeconds", leaseSeconds);
    putIfSet(body, "broker", broker);
    putIfSet(body, "stream", stream);
    Payloads.putIfSet(body, "maxLen", maxLen);
    putIfSet(body, "exchange", exchange);
    putIfSet(body, "routingKey", routingKey);
    putIfSet(body, "topic", topic);
    putIfSet(body, "key", key);
    return body;
  }

  /** From a task's or schedule task's {@code delivery}; null when absent. */
  static Delivery from(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    return new Delivery(
        Json.text(node, "mode"),
        Json.text(node, "queue"),
        Json.integer(node, "leaseSeconds"),
        Json.text(node, "broker"),
        Json.text(node, "stream"),
        Json.integer(node, "maxLen"),
        Json.text(node, "exchange"),
        Json.text(node, "routingKey"),
        Json.text(node, "topic"),
        Json.text(node, "key"),
        Json.text(node, "kind"));
  }

  private static void putIfSet(ObjectNode body, String field, String value) {
    if (value != null) {
      body.put(field, value);
    }
  }
}
