"""Every case of `conformance/callbacks/*.json` but the receiver's (`test_receiver_vectors.py`):
verify and parse on the raw bytes, fixed clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from delayed_tasks import Callback, CallbackRejectedError, WebhookVerifier

from ..wire import mismatches, to_wire
from .vectors import load, require, untag


@pytest.mark.parametrize("case", load("callbacks", skip=("receiver",)))
def test_callback_vector(case: dict[str, Any] | None) -> None:
    case = require(case, "callbacks")
    body = case["body"].encode()
    expect = case["expect"]
    outcome: Callback | CallbackRejectedError
    try:
        verifier = WebhookVerifier(
            case["secrets"],
            tolerance=timedelta(seconds=case.get("toleranceSeconds", 300)),
            clock=lambda: float(case["now"]),
        )
        outcome = verifier.verify_and_parse(case["headers"], body)
    except CallbackRejectedError as exc:
        outcome = exc
    if "error" in expect:
        assert isinstance(outcome, CallbackRejectedError), f"expected {expect}, got {outcome!r}"
        assert outcome.reason == expect["error"]
    else:
        assert isinstance(outcome, Callback), f"expected {expect}, got rejection {outcome}"
        problems = mismatches(untag(expect["callback"]), to_wire(outcome), "callback")
        assert not problems, "\n".join(problems)
