"""The callback receiver as Starlette routes (`pip install 'delayed-tasks[starlette]'`).

```python
from starlette.applications import Starlette
from delayed_tasks.starlette import callback_routes

app = Starlette(routes=[*callback_routes(receiver, "/callbacks"), ...])
```

Both `/callbacks` and `/callbacks/` reach the receiver. `Mount("/callbacks", receiver)` would not
do: Starlette redirects the bare path (307), and the service takes a 3xx as a permanent failure.
"""

from __future__ import annotations

try:
    from starlette.routing import Route
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "delayed_tasks.starlette needs Starlette: pip install 'delayed-tasks[starlette]'"
    ) from exc

from .asgi import CallbackASGIApp

ROUTE_NAME = "delayed_tasks_callback"


def callback_paths(path: str) -> tuple[str, str]:
    """`path` without and with its trailing slash."""
    if not path.startswith("/") or path == "/":
        raise ValueError(f"the callback path must start with / and name something: {path!r}")
    bare = path.rstrip("/")
    return bare, bare + "/"


def callback_routes(receiver: CallbackASGIApp, path: str) -> list[Route]:
    """Routes sending `path` and `path/` (every method: the receiver answers 405 to all but
    POST) to `receiver`, a plain ASGI app to Starlette."""
    return [
        Route(p, receiver, name=ROUTE_NAME, include_in_schema=False) for p in callback_paths(path)
    ]
