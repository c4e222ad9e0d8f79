"""Signing as the service does it, written from the Standard Webhooks spec for the tests."""

from __future__ import annotations

import base64
import hashlib
import hmac

SECRET = "whsec_" + base64.b64encode(b"test-secret-of-32-bytes-length!!").decode()
OTHER_SECRET = "whsec_" + base64.b64encode(b"another-secret").decode()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(secret: str, body: bytes, *, timestamp: int, msg_id: str = "msg_1") -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, msg_id, timestamp, body),
    }
