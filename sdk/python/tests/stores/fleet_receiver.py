"""One receiver of the fleet test, run as its own process:
`python -m tests.stores.fleet_receiver redis|sql URL EFFECTS_FILE CLAIM_TTL_MS`.

A threaded WSGI server on a loopback port (printed on stdout once listening) serving
`CallbackWSGIApp` with the shared store. The handler appends the callback's task id to
EFFECTS_FILE (one `write` with O_APPEND, so lines of concurrent processes do not mix); a payload
`{"hang": true}` makes the first process to run it (the one that creates EFFECTS_FILE.hang)
append `started <task id>` and never return (the test kills it); a retry elsewhere runs."""

from __future__ import annotations

import os
import sys
import threading
from datetime import timedelta
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from delayed_tasks import Callback, CallbackWSGIApp, IdempotencyStore

from ..signing import SECRET


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 256


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


def open_store(kind: str, url: str) -> IdempotencyStore:
    if kind == "redis":
        import redis

        from delayed_tasks.redis import RedisIdempotencyStore

        return RedisIdempotencyStore(redis.Redis.from_url(url, max_connections=64))
    from psycopg_pool import ConnectionPool

    from delayed_tasks.postgres import SqlIdempotencyStore

    pool = ConnectionPool(url, min_size=2, max_size=8, kwargs={"autocommit": True}, open=True)
    return SqlIdempotencyStore(pool)


def _first(marker: str) -> bool:
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def main() -> None:
    kind, url, effects_path, claim_ms = sys.argv[1:5]
    effects = os.open(effects_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    app = CallbackWSGIApp(
        secrets=[SECRET],
        idempotency_store=open_store(kind, url),
        claim_ttl=timedelta(milliseconds=int(claim_ms)),
    )

    @app.handler("fleet.effect")
    def effect(callback: Callback) -> None:
        if callback.payload.get("hang") and _first(effects_path + ".hang"):
            os.write(effects, f"started {callback.task_id}\n".encode())
            threading.Event().wait()
        os.write(effects, f"{callback.task_id}\n".encode())

    server = make_server("127.0.0.1", 0, app, server_class=_Server, handler_class=_Quiet)
    print(server.server_port, flush=True)
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
