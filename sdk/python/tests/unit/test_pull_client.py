"""The lease verbs' requests, through httpx's MockTransport."""

from __future__ import annotations

import json

import httpx

from delayed_tasks import Client, LeaseRequest, NackRequest, RetryPolicy


def test_a_lease_waits_past_the_long_poll_whatever_the_clients_timeout() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/api/v1/leases":
            return httpx.Response(200, json={"leases": []})
        return httpx.Response(200, json={"taskId": "t", "status": "SUCCEEDED"})

    client = Client("http://s", timeout=2, transport=httpx.MockTransport(answer))
    assert client.lease(LeaseRequest(queues=["q"], wait_seconds=15)) == []
    assert client.lease(LeaseRequest(queues=["q"])) == []
    assert [r.extensions["timeout"]["read"] for r in seen] == [25.0, 30.0]
    client.ack("lt")
    assert seen[-1].extensions["timeout"]["read"] == 2.0


def test_a_nack_reason_is_cut_to_2000_characters() -> None:
    bodies: list[dict[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"taskId": "t", "status": "RUNNING"})

    client = Client(
        "http://s", transport=httpx.MockTransport(answer), retry=RetryPolicy(max_retries=0)
    )
    client.nack("lt", NackRequest(retryable=True, reason="x" * 5000))
    assert bodies == [{"leaseToken": "lt", "retryable": True, "reason": "x" * 2000}]
