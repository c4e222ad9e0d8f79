"""Reads messages a broker task published, with the broker's ordinary Python client.

usage: broker_consume.py KIND COUNT TIMEOUT_S ARGS...
  redis-streams URL STREAM GROUP   XGROUP CREATE (from 0) then XREADGROUP and XACK
  rabbitmq URL QUEUE               basic_get and ack
  kafka BOOTSTRAP TOPIC GROUP      a consumer group from the earliest offset

Prints a JSON list of {body, headers, properties}.
"""

import json
import sys
import time


def redis_streams(count, timeout_s, url, stream, group):
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.xgroup_create(stream, group, id="0", mkstream=True)
    except redis.ResponseError as err:
        if "BUSYGROUP" not in str(err):
            raise
    out = []
    deadline = time.time() + timeout_s
    while len(out) < count and time.time() < deadline:
        batches = client.xreadgroup(group, "python", {stream: ">"}, count=count, block=200)
        for _stream, entries in batches or []:
            for entry_id, fields in entries:
                decoded = {k.decode(): v.decode() for k, v in fields.items()}
                body = decoded.pop("body")
                out.append({"body": body, "headers": decoded, "properties": {"id": entry_id.decode()}})
                client.xack(stream, group, entry_id)
    return out


def rabbitmq(count, timeout_s, url, queue):
    import pika

    connection = pika.BlockingConnection(pika.URLParameters(url))
    channel = connection.channel()
    out = []
    deadline = time.time() + timeout_s
    while len(out) < count and time.time() < deadline:
        method, props, body = channel.basic_get(queue)
        if method is None:
            time.sleep(0.1)
            continue
        headers = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in (props.headers or {}).items()}
        out.append(
            {
                "body": body.decode(),
                "headers": headers,
                "properties": {
                    "messageId": props.message_id,
                    "deliveryMode": props.delivery_mode,
                    "contentType": props.content_type,
                    "type": props.type,
                },
            }
        )
        channel.basic_ack(method.delivery_tag)
    connection.close()
    return out


def kafka(count, timeout_s, bootstrap, topic, group):
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        consumer_timeout_ms=int(timeout_s * 1000),
    )
    out = []
    for record in consumer:
        out.append(
            {
                "body": record.value.decode(),
                "headers": {k: v.decode() for k, v in record.headers},
                "properties": {"key": record.key.decode() if record.key else None},
            }
        )
        if len(out) >= count:
            break
    consumer.commit()
    consumer.close()
    return out


def main():
    kind, count, timeout_s, *args = sys.argv[1:]
    handler = {"redis-streams": redis_streams, "rabbitmq": rabbitmq, "kafka": kafka}[kind]
    print(json.dumps(handler(int(count), float(timeout_s), *args)))


if __name__ == "__main__":
    main()
