"""The callback the service POSTs when a task is due: parsing it, and verifying its signature
(Standard Webhooks) on the raw bytes before anything is parsed."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from ._models import parse_time


class RejectionReason(StrEnum):
    """Why a callback was refused; stable strings shared by every SDK."""

    MISSING_HEADER = "missing_header"
    INVALID_TIMESTAMP = "invalid_timestamp"
    TIMESTAMP_TOO_OLD = "timestamp_too_old"
    TIMESTAMP_TOO_NEW = "timestamp_too_new"
    NO_MATCHING_SIGNATURE = "no_matching_signature"
    INVALID_SECRET = "invalid_secret"
    INVALID_BODY = "invalid_body"


class CallbackRejectedError(ValueError):
    """A callback that must not be handled; `reason` is a `RejectionReason` value."""

    def __init__(self, reason: RejectionReason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.detail = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.detail))


@dataclass(frozen=True, slots=True)
class Callback:
    """The body of a callback. Integers keep every digit (Python's `json` does not round them)."""

    task_id: str
    task_type: str
    payload: dict[str, Any]
    payload_version: int
    execute_at: datetime
    attempt: int
    trace_id: str | None
    schedule: CallbackSchedule | None = None
    """Set when the task is an occurrence of a schedule; `None` for a one-shot task."""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class CallbackSchedule:
    """The schedule an occurrence runs for, and its nominal time (before jitter; for a backfill,
    the past run time)."""

    schedule_id: str
    scheduled_at: datetime


def _schedule(data: Mapping[str, Any]) -> CallbackSchedule | None:
    value = data.get("schedule")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "schedule is malformed")
    try:
        scheduled_at = parse_time(_field(value, "scheduledAt", str))
    except ValueError as exc:
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "schedule is malformed") from exc
    assert scheduled_at is not None
    return CallbackSchedule(_field(value, "scheduleId", str), scheduled_at)


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, f"{name} is missing or malformed")
    return value


def parse_callback(body: bytes | str) -> Callback:
    """The typed callback in a raw body; raises `CallbackRejectedError` (`invalid_body`)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "body is not JSON") from exc
    if not isinstance(data, dict):
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "body is not a JSON object")
    trace_id = data.get("traceId")
    if trace_id is not None and not isinstance(trace_id, str):
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "traceId is malformed")
    try:
        execute_at = parse_time(_field(data, "executeAt", str))
    except ValueError as exc:
        raise CallbackRejectedError(RejectionReason.INVALID_BODY, "executeAt is malformed") from exc
    assert execute_at is not None
    return Callback(
        task_id=_field(data, "taskId", str),
        task_type=_field(data, "taskType", str),
        payload=_field(data, "payload", dict),
        payload_version=_field(data, "payloadVersion", int),
        execute_at=execute_at,
        attempt=_field(data, "attempt", int),
        trace_id=trace_id,
        schedule=_schedule(data),
        raw=data,
    )


SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = timedelta(minutes=5)
_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")


def _decode_secret(secret: str) -> bytes:
    if not isinstance(secret, str) or not secret.startswith(SECRET_PREFIX):
        raise CallbackRejectedError(RejectionReason.INVALID_SECRET, "a secret starts with whsec_")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CallbackRejectedError(RejectionReason.INVALID_SECRET, "secret is not base64") from exc
    if not key:
        raise CallbackRejectedError(RejectionReason.INVALID_SECRET, "secret is empty")
    return key


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise CallbackRejectedError(RejectionReason.MISSING_HEADER, f"no {name} header")


class WebhookVerifier:
    """Checks Standard Webhooks signatures: `webhook-id`, `webhook-timestamp` and
    `webhook-signature` (space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`).

    `secrets` are `whsec_<base64>` strings; several are accepted while one is rotated out.
    `clock` returns the current Unix time in seconds (tests pass a fixed one).
    """

    def __init__(
        self,
        secrets: str | Iterable[str],
        *,
        tolerance: timedelta = DEFAULT_TOLERANCE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        listed = [secrets] if isinstance(secrets, str) else list(secrets)
        if not listed:
            raise CallbackRejectedError(RejectionReason.INVALID_SECRET, "no secret given")
        self._keys = [_decode_secret(s) for s in listed]
        self._tolerance = tolerance.total_seconds()
        self._clock = clock

    def verify(self, headers: Mapping[str, str], body: bytes) -> str:
        """Return the signed `webhook-id` (the key to deduplicate on) when the signature holds;
        raise `CallbackRejectedError` otherwise."""
        msg_id = _header(headers, "webhook-id")
        timestamp = _header(headers, "webhook-timestamp")
        signatures = _header(headers, "webhook-signature")
        if not _TIMESTAMP.match(timestamp.strip()):
            raise CallbackRejectedError(RejectionReason.INVALID_TIMESTAMP, "not Unix seconds")
        sent = int(timestamp.strip())
        now = self._clock()
        if sent < now - self._tolerance:
            raise CallbackRejectedError(RejectionReason.TIMESTAMP_TOO_OLD, "outside the tolerance")
        if sent > now + self._tolerance:
            raise CallbackRejectedError(RejectionReason.TIMESTAMP_TOO_NEW, "outside the tolerance")
        signed = f"{msg_id}.{timestamp}.".encode() + body
        expected = [
            base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()) for key in self._keys
        ]
        for entry in signatures.split(" "):
            version, _, signature = entry.partition(",")
            if version != "v1":
                continue
            given = signature.encode()
            # Compare with every key (no early exit), so the time taken says nothing.
            matches = [hmac.compare_digest(given, e) for e in expected]
            if any(matches):
                return msg_id
        raise CallbackRejectedError(RejectionReason.NO_MATCHING_SIGNATURE, "no signature matches")

    def verify_and_parse(self, headers: Mapping[str, str], body: bytes) -> Callback:
        self.verify(headers, body)
        return parse_callback(body)
