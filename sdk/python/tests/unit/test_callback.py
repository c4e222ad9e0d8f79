"""parse and verify on raw bytes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from delayed_tasks import CallbackRejectedError, WebhookVerifier, parse_callback

from ..signing import OTHER_SECRET, SECRET, headers, sign

NOW = 1_764_756_000
BODY = json.dumps(
    {
        "taskId": "t-1",
        "taskType": "order.close",
        "payload": {"orderId": 12345678901234567890, "price": 0.1},
        "payloadVersion": 2,
        "executeAt": "2026-12-03T10:00:00.000Z",
        "attempt": 1,
        "traceId": None,
    }
).encode()


def verifier(*secrets: str, tolerance: float = 300) -> WebhookVerifier:
    return WebhookVerifier(list(secrets), tolerance=timedelta(seconds=tolerance), clock=lambda: NOW)


def reason(verify: WebhookVerifier, hdrs: dict[str, str], body: bytes = BODY) -> str:
    with pytest.raises(CallbackRejectedError) as caught:
        verify.verify_and_parse(hdrs, body)
    return caught.value.reason


def test_parse_keeps_big_integers_and_types_fields() -> None:
    cb = parse_callback(BODY)
    assert cb.payload["orderId"] == 12345678901234567890
    assert (cb.task_id, cb.task_type, cb.payload_version, cb.attempt) == (
        "t-1",
        "order.close",
        2,
        1,
    )
    assert cb.execute_at == datetime(2026, 12, 3, 10, tzinfo=UTC)
    assert cb.trace_id is None


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[]", b'{"taskId": "t"}', BODY.replace(b'"attempt": 1', b'"attempt": "1"')],
)
def test_parse_refuses_malformed_bodies(body: bytes) -> None:
    with pytest.raises(CallbackRejectedError) as caught:
        parse_callback(body)
    assert caught.value.reason == "invalid_body"


def test_verify_accepts_a_valid_signature_with_case_insensitive_headers() -> None:
    hdrs = {k.title(): v for k, v in headers(SECRET, BODY, timestamp=NOW).items()}
    assert verifier(SECRET).verify_and_parse(hdrs, BODY).task_id == "t-1"


def test_rotation_any_listed_secret_and_any_v1_entry_matches() -> None:
    hdrs = headers(SECRET, BODY, timestamp=NOW)
    hdrs["webhook-signature"] = f"v2,abc v1,bm9wZQ== {hdrs['webhook-signature']}"
    assert verifier(OTHER_SECRET, SECRET).verify_and_parse(hdrs, BODY).task_id == "t-1"


def test_rejections() -> None:
    good = headers(SECRET, BODY, timestamp=NOW)
    v = verifier(SECRET)
    for name in good:
        missing = {k: val for k, val in good.items() if k != name}
        assert reason(v, missing) == "missing_header"
    assert reason(v, {**good, "webhook-timestamp": "soon"}) == "invalid_timestamp"
    assert reason(v, headers(SECRET, BODY, timestamp=NOW - 301)) == "timestamp_too_old"
    assert reason(v, headers(SECRET, BODY, timestamp=NOW + 301)) == "timestamp_too_new"
    assert verifier(SECRET).verify_and_parse(headers(SECRET, BODY, timestamp=NOW - 300), BODY)
    assert reason(v, headers(OTHER_SECRET, BODY, timestamp=NOW)) == "no_matching_signature"
    assert reason(v, good, BODY + b" ") == "no_matching_signature"
    assert reason(v, {**good, "webhook-signature": "v2," + good["webhook-signature"][3:]}) == (
        "no_matching_signature"
    )
    unsigned_json = b"{oops"
    assert reason(v, headers(SECRET, unsigned_json, timestamp=NOW), unsigned_json) == "invalid_body"


@pytest.mark.parametrize("secret", ["no-prefix", "whsec_!!!not base64", "whsec_"])
def test_invalid_secrets(secret: str) -> None:
    with pytest.raises(CallbackRejectedError) as caught:
        WebhookVerifier([secret])
    assert caught.value.reason == "invalid_secret"


def test_signature_covers_the_raw_bytes_not_a_reserialisation() -> None:
    spaced = b'{ "taskId":"t-1" ,"taskType":"a","payload":{},"payloadVersion":1,' + (
        b'"executeAt":"2026-12-03T10:00:00Z","attempt":1,"traceId":"x"}'
    )
    hdrs = {
        "webhook-id": "m",
        "webhook-timestamp": str(NOW),
        "webhook-signature": sign(SECRET, "m", NOW, spaced),
    }
    assert verifier(SECRET).verify_and_parse(hdrs, spaced).trace_id == "x"


def test_the_standard_webhooks_specification_example_verifies() -> None:
    # The vector the spec's reference libraries share: independent of this package's signing.
    spec = WebhookVerifier(["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], clock=lambda: 1614265330)
    hdrs = {
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    spec.verify(hdrs, b'{"test": 2432232314}')
    with pytest.raises(CallbackRejectedError):
        spec.verify(hdrs, b'{"test": 2432232315}')
