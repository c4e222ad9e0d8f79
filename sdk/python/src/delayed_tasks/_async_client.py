"""The asynchronous client."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx

from ._checks import Delay
from ._models import CreateTaskResult, CreateTasksItem, Delivery, Task, TaskPage, TaskSummary
from ._pull import (
    ExtendResult,
    Lease,
    LeaseRequest,
    LeaseResult,
    NackRequest,
    ack_request,
    extend_request,
    lease_request,
    nack_request,
    release_request,
)
from ._request import (
    DEFAULT_TIMEOUT,
    ApiRequest,
    ClientCore,
    CreateTaskRequest,
    ListFilter,
    Trace,
    cancel_request,
    create_request,
    create_tasks_request,
    list_request,
    replay_request,
    reschedule_request,
    status_request,
)
from ._retry import RetryPolicy
from ._schedules import (
    UNSET,
    CreateScheduleResult,
    OverlapPolicy,
    Schedule,
    SchedulePage,
    ScheduleTaskRequest,
    _Unset,
    backfill_schedule_request,
    create_schedule_request,
    delete_schedule_request,
    get_schedule_request,
    list_schedules_request,
    note_request,
    trigger_schedule_request,
    update_schedule_request,
)

T = TypeVar("T")


class AsyncClient:
    """Asynchronous client of the delayed-task service: `Client`'s operations, awaited.

    `base_url` is the service's root (`http://localhost:3000`). `api_key` is sent as
    `Authorization: Bearer <key>`. `timeout` limits each HTTP attempt; `retry` says how
    `UNAVAILABLE`, `RESOURCE_EXHAUSTED`, timeouts and network errors are retried (nothing else
    is). `transport` replaces httpx's network layer (tests); `http_client` is used as given and
    left open by `aclose()`.

    Every method raises `DelayedTaskError` (a subclass per code) and checks its arguments before
    sending: a check that fails raises `InvalidArgumentError` with `status` `0` and no request
    made.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float | timedelta = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._core = ClientCore(base_url, api_key=api_key, timeout=timeout, retry=retry)
        if transport is not None and http_client is not None:
            raise ValueError("give transport or http_client, not both")
        self._owns_http = http_client is None
        self._default_transport = transport is None
        self._http = http_client or httpx.AsyncClient(transport=transport)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    def _own_connections(self) -> httpx.AsyncClient | None:
        """A new httpx client like the one this client made itself (the sync worker's long polls
        go through one of their own, _long_poll.py), or None when this client was given a
        transport or an http client, which cannot be copied."""
        return httpx.AsyncClient() if self._owns_http and self._default_transport else None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _send(
        self,
        request: ApiRequest[T],
        *,
        http: httpx.AsyncClient | None = None,
        trace: Trace | None = None,
    ) -> T:
        """`http`: another httpx client to send it through (the sync worker's long polls);
        `trace`: httpcore's trace extension for the request."""
        http = http or self._http
        http_request = self._core.build(http, request, trace)
        retry = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = await http.send(http_request)
                await outcome.aread()
            except httpx.TransportError as exc:
                outcome = exc
            wait = self._core.wait_before_retry(retry, outcome)
            if wait is None:
                return self._core.finish(request, outcome)
            await asyncio.sleep(wait)
            retry += 1

    async def create(
        self,
        *,
        task_type: str,
        payload: Mapping[str, Any],
        delay: Delay | None = None,
        execute_at: datetime | None = None,
        callback_url: str | None = None,
        delivery: Delivery | None = None,
        task_id: str | None = None,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
        payload_version: int | None = None,
        trace_id: str | None = None,
        priority: int | None = None,
    ) -> CreateTaskResult:
        """Create a task due after `delay` (a `timedelta` or seconds) or at `execute_at` (an
        aware `datetime`): exactly one of the two. `callback_url` or `delivery` (pull or broker,
        see `Delivery`), not both; neither when the task type's policy names the callback.

        Without `task_id` a UUID is generated, so the retries of this call cannot create two
        tasks. The same `task_id` and spec again returns the existing task with
        `created=False`; another spec raises `TaskConflictError`.
        """
        return await self._send(
            create_request(
                CreateTaskRequest(
                    task_type=task_type,
                    payload=payload,
                    delay=delay,
                    execute_at=execute_at,
                    callback_url=callback_url,
                    delivery=delivery,
                    task_id=task_id,
                    max_retries=max_retries,
                    timeout_ms=timeout_ms,
                    payload_version=payload_version,
                    trace_id=trace_id,
                    priority=priority,
                )
            )
        )

    async def create_tasks(self, tasks: Iterable[CreateTaskRequest]) -> list[CreateTasksItem]:
        """Create up to 100 tasks in one request (`POST /api/v1/tasks/batch`): one
        `CreateTasksItem` per task, in order, with the task or the exception a single `create`
        of it would raise. An item refused by the checks before sending gets its
        `InvalidArgumentError` (status `0`) and is not sent; the others still are.

        Task ids are generated before the first attempt, so the whole request is retried like
        `create` (503, 429, network errors); an item answered with its own error is never
        re-sent. A failure of the whole request (401, 403, a 400 for the list itself, other
        5xx) raises.
        """
        request = create_tasks_request(list(tasks))
        return request if isinstance(request, list) else await self._send(request)

    async def status(self, task_id: str) -> Task:
        """The task as it is now (`TaskNotFoundError` when there is none)."""
        return await self._send(status_request(task_id))

    async def cancel(self, task_id: str) -> Task:
        """Cancel a task; cancelling a cancelled one is a no-op, a finished one raises
        `FailedPreconditionError`."""
        return await self._send(cancel_request(task_id))

    async def list(
        self,
        *,
        status: str | None = None,
        task_type: str | None = None,
        id_prefix: str | None = None,
        owner: str | None = None,
        due_after: datetime | None = None,
        due_before: datetime | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
    ) -> TaskPage:
        """One page of tasks; pass its `next_page_token` as `page_token` for the next
        (`list_all` follows the pages for you).

        `status` (a `TaskStatus`), `task_type`, `id_prefix` (task ids starting with it),
        `owner` (admin keys: that owner's tasks) and the due range (`due_after`,
        `due_before`: aware datetimes, sent as UTC) narrow the list; `page_size` 1 to 1000.
        """
        filters = ListFilter(
            status=status,
            task_type=task_type,
            id_prefix=id_prefix,
            owner=owner,
            due_after=due_after,
            due_before=due_before,
            page_size=page_size,
        )
        return await self._send(list_request(filters, page_token))

    async def list_all(
        self,
        *,
        status: str | None = None,
        task_type: str | None = None,
        id_prefix: str | None = None,
        owner: str | None = None,
        due_after: datetime | None = None,
        due_before: datetime | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[TaskSummary]:
        """Every matching task, with the filters of `list`: an iterator that fetches the next
        page when it is reached."""
        filters = ListFilter(
            status=status,
            task_type=task_type,
            id_prefix=id_prefix,
            owner=owner,
            due_after=due_after,
            due_before=due_before,
            page_size=page_size,
        )
        page_token: str | None = None
        while True:
            page = await self._send(list_request(filters, page_token))
            for task in page.tasks:
                yield task
            if page.next_page_token is None:
                return
            page_token = page.next_page_token

    async def reschedule(
        self,
        task_id: str,
        *,
        delay: Delay | None = None,
        execute_at: datetime | None = None,
    ) -> Task:
        """Move a `SCHEDULED` task: exactly one of `delay` or `execute_at`."""
        return await self._send(reschedule_request(task_id, delay=delay, execute_at=execute_at))

    async def replay(
        self,
        task_id: str,
        *,
        payload: Mapping[str, Any] | None = None,
        payload_version: int | None = None,
        max_retries: int | None = None,
        delay: Delay | None = None,
        execute_at: datetime | None = None,
    ) -> Task:
        """Run a `FAILED` or `CANCELLED` task again, now unless a delay or time is given, with
        the overrides given."""
        return await self._send(
            replay_request(
                task_id,
                payload=payload,
                payload_version=payload_version,
                max_retries=max_retries,
                delay=delay,
                execute_at=execute_at,
            )
        )

    # ------------------------------------------------------------ schedules

    async def create_schedule(
        self,
        schedule_id: str,
        *,
        task: ScheduleTaskRequest,
        cron: str | None = None,
        every: str | None = None,
        phase: str | None = None,
        time_zone: str | None = None,
        start_at: datetime | None = None,
        end_at: datetime | None = None,
        max_runs: int | None = None,
        jitter: str | None = None,
        overlap: OverlapPolicy | str | None = None,
        catchup_window: str | None = None,
        pause_on_failure: bool | None = None,
        paused: bool | None = None,
        note: str | None = None,
    ) -> CreateScheduleResult:
        """Create a recurring task: exactly one of `cron` or `every`. Each occurrence is one task
        (`<schedule_id>-<nominal time>`). `created` is false when the same id and spec existed;
        another spec raises `ScheduleConflictError`. Unset arguments take the service's defaults
        (time zone UTC, overlap skip, catch-up window 1h)."""
        spec = {
            "cron": cron,
            "every": every,
            "phase": phase,
            "time_zone": time_zone,
            "start_at": start_at,
            "end_at": end_at,
            "max_runs": max_runs,
            "jitter": jitter,
            "overlap": None if overlap is None else str(overlap),
            "catchup_window": catchup_window,
            "pause_on_failure": pause_on_failure,
            "paused": paused,
            "note": note,
        }
        return await self._send(create_schedule_request(schedule_id, task, spec))

    async def get_schedule(self, schedule_id: str) -> Schedule:
        """The schedule with its next run times (from Temporal) and recent occurrences."""
        return await self._send(get_schedule_request(schedule_id))

    async def list_schedules(
        self,
        *,
        task_type: str | None = None,
        paused: bool | None = None,
        owner: str | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
    ) -> SchedulePage:
        """One page of schedules, by id."""
        return await self._send(
            list_schedules_request(
                task_type=task_type,
                paused=paused,
                owner=owner,
                page_size=page_size,
                page_token=page_token,
            )
        )

    async def update_schedule(
        self,
        schedule_id: str,
        *,
        cron: str | _Unset = UNSET,
        every: str | _Unset = UNSET,
        phase: str | _Unset | None = UNSET,
        time_zone: str | _Unset = UNSET,
        start_at: datetime | _Unset | None = UNSET,
        end_at: datetime | _Unset | None = UNSET,
        max_runs: int | _Unset | None = UNSET,
        jitter: str | _Unset | None = UNSET,
        overlap: OverlapPolicy | str | _Unset = UNSET,
        catchup_window: str | _Unset = UNSET,
        pause_on_failure: bool | _Unset = UNSET,
        task: ScheduleTaskRequest | _Unset = UNSET,
    ) -> Schedule:
        """Change a schedule: the arguments given replace its fields (`task` as a whole), `None`
        clears `phase`, `start_at`, `end_at`, `max_runs` or `jitter`. The service checks the
        result as a create before it takes effect."""
        changes = {
            "cron": cron,
            "every": every,
            "phase": phase,
            "time_zone": time_zone,
            "start_at": start_at,
            "end_at": end_at,
            "max_runs": max_runs,
            "jitter": jitter,
            "overlap": overlap if isinstance(overlap, _Unset) else str(overlap),
            "catchup_window": catchup_window,
            "pause_on_failure": pause_on_failure,
            "task": task,
        }
        return await self._send(update_schedule_request(schedule_id, changes))

    async def pause_schedule(self, schedule_id: str, note: str | None = None) -> Schedule:
        """Pause a schedule: no run starts until it is resumed; the note is kept with it."""
        return await self._send(note_request(schedule_id, "pause", note))

    async def resume_schedule(self, schedule_id: str, note: str | None = None) -> Schedule:
        """Resume a paused schedule; runs missed while paused do not start."""
        return await self._send(note_request(schedule_id, "resume", note))

    async def trigger_schedule(
        self, schedule_id: str, *, overlap: OverlapPolicy | str | None = None
    ) -> Schedule:
        """Start one occurrence now, also when paused (overlap: the service's `allowAll`)."""
        return await self._send(trigger_schedule_request(schedule_id, overlap))

    async def backfill_schedule(
        self,
        schedule_id: str,
        *,
        start_at: datetime,
        end_at: datetime,
        overlap: OverlapPolicy | str | None = None,
    ) -> Schedule:
        """Start one occurrence per run time of the spec in a past range, with its nominal time."""
        return await self._send(backfill_schedule_request(schedule_id, start_at, end_at, overlap))

    async def delete_schedule(self, schedule_id: str) -> None:
        """Delete a schedule; occurrences already started run on as tasks."""
        await self._send(delete_schedule_request(schedule_id))

    # Pull delivery (conformance/pull/README.md); `PullWorker` runs them for you.

    async def lease(self, request: LeaseRequest) -> builtins.list[Lease]:
        """Long-poll the queues: the leases as soon as one task is leased, `[]` after
        `wait_seconds`. The HTTP read waits `wait_seconds` + 10 s whatever `timeout` says."""
        return await self._send(lease_request(request))

    async def ack(self, lease_token: str) -> LeaseResult:
        """The task SUCCEEDED. `LeaseExpiredError`, `LeaseNotFoundError`, `TaskCancelledError`
        when the lease is no longer this worker's."""
        return await self._send(ack_request(lease_token))

    async def nack(self, lease_token: str, request: NackRequest | None = None) -> LeaseResult:
        """The attempt failed: retried with the task's backoff (`RUNNING`), or dead-lettered
        at once (`FAILED`) when `retryable=False`."""
        return await self._send(nack_request(lease_token, request))

    async def extend(self, lease_token: str) -> ExtendResult:
        """The lease runs the task's `leaseSeconds` from now."""
        return await self._send(extend_request(lease_token))

    async def release(self, lease_token: str) -> LeaseResult:
        """Hand the task back unhandled: no attempt spent, leasable again at once."""
        return await self._send(release_request(lease_token))
