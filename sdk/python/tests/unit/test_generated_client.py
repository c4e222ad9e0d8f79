"""The synchronous client is generated from the asynchronous one (tools/generate_client.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_client", ROOT / "tools" / "generate_client.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sync_client_is_the_async_one_generated() -> None:
    generator = _generator()
    expected = generator.generate(generator.SOURCE.read_text())
    assert generator.TARGET.read_text() == expected, (
        "src/delayed_tasks/_client.py differs from what tools/generate_client.py writes from "
        "_async_client.py: edit the async client, then run `python tools/generate_client.py`"
    )
