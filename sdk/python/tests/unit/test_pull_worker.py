"""PullWorker's behaviour beyond the shared shell vectors, against the fake service (unit tests of
the shell): shutdown from a signal handler on run()'s own thread, as the README advises."""

from __future__ import annotations

import signal
import threading

from delayed_tasks import Client, PullWorker, PullWorkerOptions, RetryPolicy

from ..conformance.pull_fake import fake_service


def test_shutdown_from_a_signal_handler_on_the_run_thread_ends_run() -> None:
    assert threading.current_thread() is threading.main_thread()
    with (
        fake_service() as (base_url, fake),
        Client(base_url, retry=RetryPolicy(max_retries=0)) as client,
    ):
        worker = PullWorker(client, PullWorkerOptions(worker_identity="w"))
        worker.handle("order.close", lambda task: None)
        previous = signal.signal(signal.SIGALRM, lambda *_: worker.shutdown(1))
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            worker.run()  # the long poll stays pending; the signal's shutdown ends run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        pending = fake.take(fake.leases, "lease")
        assert pending.body["workerIdentity"] == "w"
        assert fake.calls.empty()
