"""The durable queue of accepted push events: one table, `event_id` unique (a replay is
refused, not queued twice). SQLite (WAL) under KP_HOME by default; the Dagster instance's
Postgres when the DAGSTER_PG_* variables that deploy/dagster.prod.yaml reads are set, so the
MCP service and the Dagster daemon share it across containers. One SQLAlchemy table
definition serves both.

Writers (the webhook endpoints) only insert. The hooks sensor reads rows above its cursor
(rows older than a second: a Postgres id is taken before its transaction commits) and prunes
drained rows once they are `keep_days` old. A second table counts refused deliveries per
source and reason, for `kp hooks status`."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    URL,
    BigInteger,
    Column,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from knowledge_platform.connectors.webhooks.events import HookEvent, Rejected
from knowledge_platform.errors import ConfigError

PG_ENV = (
    "DAGSTER_PG_USERNAME",
    "DAGSTER_PG_PASSWORD",
    "DAGSTER_PG_HOSTNAME",
    "DAGSTER_PG_DB",
    "DAGSTER_PG_PORT",
)
#: Rows younger than this are not drained yet (a Postgres transaction may still commit an
#: id below one already visible). SQLite has one writer at a time, so its ids become visible in
#: order and its rows are drained at once: a second of settling made an edit arriving just
#: before a hooks_sensor tick wait for the next tick, 5 s later (#29).
SETTLE_SECONDS = 1.0

metadata = MetaData()
events_table = Table(
    "kp_hook_events",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("event_id", String(300), nullable=False, unique=True),
    Column("source", String(40), nullable=False),
    Column("scope", String(80), nullable=False),
    Column("hint", Text, nullable=True),
    Column("received_at", Float, nullable=False, index=True),
    sqlite_autoincrement=True,  # ids never reused after a prune: the sensor's cursor holds
)
rejects_table = Table(
    "kp_hook_rejects",
    metadata,
    Column("source", String(40), primary_key=True),
    Column("code", String(40), primary_key=True),
    Column("status", Integer, nullable=False),
    Column("count", BigInteger, nullable=False),
    Column("last_at", Float, nullable=False),
    Column("last_reason", String(300), nullable=False),
)


@dataclass(frozen=True)
class QueuedEvent:
    id: int
    event_id: str
    source: str
    scope: str
    hint: str | None
    received_at: float

    @property
    def group(self) -> str:
        """`<source>:<scope>`: the events of one group become one run."""
        return f"{self.source}:{self.scope}"


def queue_url(home: Path, env: Mapping[str, str] | None = None) -> URL:
    """Postgres when every DAGSTER_PG_* variable is set, else sqlite under KP_HOME/hooks."""
    env = os.environ if env is None else env
    if all(env.get(k) for k in PG_ENV):
        return URL.create(
            "postgresql+psycopg2",
            username=env["DAGSTER_PG_USERNAME"],
            password=env["DAGSTER_PG_PASSWORD"],
            host=env["DAGSTER_PG_HOSTNAME"],
            port=int(env["DAGSTER_PG_PORT"]),
            database=env["DAGSTER_PG_DB"],
        )
    path = home / "hooks" / "queue.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return URL.create("sqlite", database=str(path))


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=5000")
    # A delivery is answered 200 only after its commit; FULL syncs the WAL at each commit, so
    # an accepted event survives a power cut as well as a killed process (NORMAL: only the
    # latter), for one fsync per delivery.
    cur.execute("PRAGMA synchronous=FULL")
    cur.close()


class HookQueue:
    def __init__(self, url: URL) -> None:
        self.url = url
        try:
            self.engine: Engine = create_engine(url, pool_pre_ping=url.drivername != "sqlite")
        except ModuleNotFoundError as exc:  # psycopg2: the production extra
            raise ConfigError(
                "the webhook queue is in Postgres (every DAGSTER_PG_* variable is set) "
                f"and needs {exc.name}, which the production extra installs: "
                "KP_EXTRAS='dev production' scripts/bootstrap, or unset them for sqlite"
            ) from None
        if url.drivername == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine, checkfirst=True)

    @property
    def kind(self) -> str:
        return "postgres" if self.url.drivername.startswith("postgresql") else "sqlite"

    def close(self) -> None:
        self.engine.dispose()

    # -- the endpoints -----------------------------------------------------------------------
    def put(self, events: Sequence[HookEvent], received_at: float | None = None) -> None:
        """Queue every event of one delivery, or none: Rejected(409) when one was seen."""
        if not events:
            return
        now = time.time() if received_at is None else received_at
        rows = [
            {
                "event_id": e.event_id,
                "source": e.source,
                "scope": e.scope,
                "hint": e.hint_json(),
                "received_at": now,
            }
            for e in events
        ]
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(events_table), rows)
        except IntegrityError:
            raise Rejected(
                409,
                f"replayed: event {events[0].event_id.rsplit('@', 1)[0]} was already received",
                code="replay",
            ) from None
        except SQLAlchemyError as exc:  # the source retries a 5xx delivery
            raise Rejected(
                503,
                f"the event queue is unavailable ({type(exc).__name__}); retry later",
                code="queue",
            ) from None

    def record_reject(self, source: str, rejected: Rejected, at: float | None = None) -> None:
        now = time.time() if at is None else at
        key = (rejects_table.c.source == source) & (rejects_table.c.code == rejected.code)
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(rejects_table)
                .where(key)
                .values(
                    count=rejects_table.c.count + 1,
                    last_at=now,
                    status=rejected.status,
                    last_reason=rejected.reason[:300],
                )
            ).rowcount
            if not changed:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            insert(rejects_table).values(
                                source=source,
                                code=rejected.code,
                                status=rejected.status,
                                count=1,
                                last_at=now,
                                last_reason=rejected.reason[:300],
                            )
                        )
                except IntegrityError:  # another writer inserted it first
                    conn.execute(
                        update(rejects_table)
                        .where(key)
                        .values(count=rejects_table.c.count + 1, last_at=now)
                    )

    # -- the sensor --------------------------------------------------------------------------
    def pending(
        self, after: int, *, settled_before: float | None = None, limit: int = 10_000
    ) -> list[QueuedEvent]:
        """Rows above the cursor `after`, oldest first, received before `settled_before`."""
        settle = SETTLE_SECONDS if self.kind == "postgres" else 0.0
        before = time.time() - settle if settled_before is None else settled_before
        query = (
            select(events_table)
            .where(events_table.c.id > after)
            .where(events_table.c.received_at < before)
            .order_by(events_table.c.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [QueuedEvent(**row._mapping) for row in conn.execute(query)]

    def prune(self, upto: int, older_than: float) -> int:
        """Forget drained rows (id <= `upto`) received before `older_than`."""
        with self.engine.begin() as conn:
            return conn.execute(
                delete(events_table)
                .where(events_table.c.id <= upto)
                .where(events_table.c.received_at < older_than)
            ).rowcount

    # -- status ------------------------------------------------------------------------------
    def last_deliveries(self) -> dict[tuple[str, str], tuple[float, int]]:
        """(source, scope) -> (newest received_at, events remembered)."""
        query = select(
            events_table.c.source,
            events_table.c.scope,
            func.max(events_table.c.received_at),
            func.count(),
        ).group_by(events_table.c.source, events_table.c.scope)
        with self.engine.connect() as conn:
            return {(s, sc): (float(at), int(n)) for s, sc, at, n in conn.execute(query)}

    def rejects(self) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [
                dict(r._mapping)
                for r in conn.execute(
                    select(rejects_table).order_by(rejects_table.c.source, rejects_table.c.code)
                )
            ]

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(events_table)).scalar_one())


@functools.cache
def _shared(url: str) -> HookQueue:
    return HookQueue(make_url(url))


def open_queue(home: Path, env: Mapping[str, str] | None = None) -> HookQueue:
    """The process's queue for this KP_HOME (one engine per URL, kept open)."""
    return _shared(queue_url(home, env).render_as_string(hide_password=False))
