"""The inbox under SQLAlchemy (the `postgresql+psycopg` dialect), as the README tells it: the
psycopg connection of the session's transaction; the session's commit commits the mark with the
business row, its rollback drops both."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import sqlalchemy
from sqlalchemy.orm import Session

from delayed_tasks import ClaimResult
from delayed_tasks.postgres import SqlIdempotencyStore

INSERT = sqlalchemy.text("INSERT INTO delayed_tasks_test_orm (key) VALUES (:key)")


def test_the_inbox_commits_and_rolls_back_with_the_session(postgres_url: str) -> None:
    engine = sqlalchemy.create_engine(
        postgres_url.replace("postgresql://", "postgresql+psycopg://").replace(
            "postgres://", "postgresql+psycopg://"
        )
    )
    with engine.begin() as setup:
        setup.execute(
            sqlalchemy.text("CREATE TABLE IF NOT EXISTS delayed_tasks_test_orm (key text)")
        )
    with psycopg.connect(postgres_url, autocommit=True) as own:
        store = SqlIdempotencyStore(own)
        key = f"orm-{uuid.uuid4().hex}"

        def run(session: Session) -> ClaimResult:
            session.execute(INSERT, {"key": key + "-before"})  # the session's own write
            driver: Any = session.connection().connection.driver_connection
            return store.run_in_transaction(
                driver,
                key,
                lambda tx: tx.execute(
                    "INSERT INTO delayed_tasks_test_orm (key) VALUES (%s)", [key]
                ),
            )

        with Session(engine) as session:
            assert run(session) is ClaimResult.CLAIMED
            session.rollback()
        probe = store.claim(key)  # the mark went with the rollback: the key is free
        assert probe.result is ClaimResult.CLAIMED
        assert probe.token is not None
        store.release(key, probe.token)

        with Session(engine) as session:
            assert run(session) is ClaimResult.CLAIMED
            session.commit()
        with Session(engine) as session:
            assert run(session) is ClaimResult.DONE
            session.commit()
        rows = own.execute(
            "SELECT key FROM delayed_tasks_test_orm WHERE key LIKE %s ORDER BY key", [key + "%"]
        ).fetchall()
        assert [r[0] for r in rows] == [key, key + "-before", key + "-before"]
    engine.dispose()
