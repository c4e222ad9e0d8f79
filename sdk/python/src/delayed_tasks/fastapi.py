"""The callback receiver as a FastAPI router (`pip install 'delayed-tasks[fastapi]'`).

```python
from fastapi import FastAPI
from delayed_tasks.fastapi import callback_router

app = FastAPI()
app.include_router(callback_router(receiver, "/callbacks"))
```

Both `/callbacks` and `/callbacks/` reach the receiver (`app.mount` would redirect the bare path
with a 307, which the service takes as a permanent failure). `include_router(..., prefix=...)`
works as for any router; FastAPI dependencies do not apply (the receiver is a plain ASGI app that
checks the signature itself).
"""

from __future__ import annotations

from typing import Any

try:
    from fastapi import APIRouter
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "delayed_tasks.fastapi needs FastAPI: pip install 'delayed-tasks[fastapi]'"
    ) from exc

from .asgi import CallbackASGIApp
from .starlette import callback_routes


def callback_router(receiver: CallbackASGIApp, path: str, **options: Any) -> APIRouter:
    """An `APIRouter` (made with `options`) whose routes send `path` and `path/` to `receiver`.
    They stay out of the OpenAPI document: the service, not a person, calls them."""
    router = APIRouter(**options)
    router.routes.extend(callback_routes(receiver, path))
    return router
