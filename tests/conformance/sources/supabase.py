"""Supabase (PostgREST): one project whose tables hold the rows of every scope. Internal rows
have no `client_id`; Acme's carry `client_id = acme`. Each scope reads the same tables
through its own registry filter (internal: `client_id: is.null`; acme: the raw template
`client_id=eq.{scope}`), so a move to another scope is a change of `client_id`.

Containers are tables: container "a" spreads its items over four tables (round robin), so a
single table can fail for good (500) under one item while the others go on; container "b" is
the table `rules`, which can answer 404 PGRST205 as a whole (a container gone). Archive is the
soft-delete column `deleted_at`; a rename changes the `title` column; a new container is a row
restored with an `updated_at` below the high-water mark (as a restore from a backup or a
backfill writes it)."""

from __future__ import annotations

from itertools import count
from typing import Any

from tests.conformance.harness import NotApplicable, SourceHarness
from tests.fakes.supabase_server import SupabaseFake

KEY = "conformance-service-key"
CONTAINER_A = ("notes", "memos", "briefs", "minutes")
CONTAINER_B = "rules"
COLUMNS = {"client_id": "text", "title": "text", "body": "text", "deleted_at": "timestamptz"}


class SupabaseHarness(SourceHarness):
    name = "supabase"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fake = SupabaseFake(key=KEY)
        for table in (*CONTAINER_A, CONTAINER_B):
            self.fake.create_table(table, COLUMNS)
        self.rows: dict[str, tuple[str, int]] = {}
        self._ids = count(1)
        self._spread = count()
        self.monkeypatch.setenv("KP_CONF_SUPABASE_KEY", KEY)

    def start(self) -> None:
        self.fake.start()

    def stop(self) -> None:
        self.fake.stop()

    def settings(self, scope: str) -> dict[str, Any]:
        scoped: Any = {"client_id": "is.null"} if scope == "internal" else "client_id=eq.{scope}"
        tables = [
            {
                "name": name,
                "title_template": "{title}",
                "text_template": "{body}",
                "filter": scoped,
                "soft_delete_column": "deleted_at",
            }
            for name in (*CONTAINER_A, CONTAINER_B)
        ]
        return {
            "url": self.fake.url(),
            "key_env": "KP_CONF_SUPABASE_KEY",
            "tables": tables,
            "page_size": 10,
            "max_retries": 2,
            "backoff_seconds": 0.01,
            "max_wait_seconds": 5,
        }

    def _table(self, container: str) -> str:
        if container == "b":
            return CONTAINER_B
        return CONTAINER_A[next(self._spread) % len(CONTAINER_A)]

    def _insert(self, key: str, table: str, row: dict[str, Any]) -> None:
        rid = next(self._ids)
        self.fake.insert(table, {"id": rid, "deleted_at": None, **row})
        self.rows[key] = (table, rid)

    def _update(self, key: str, **changes: Any) -> None:
        table, rid = self.rows[key]
        self.fake.update(table, rid, **changes)

    # -- items ---------------------------------------------------------------------------
    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None:
        client = None if scope == "internal" else scope
        self._insert(
            key, self._table(container), {"client_id": client, "title": title, "body": text}
        )

    def edit(self, key: str, text: str) -> None:
        self._update(key, body=text)

    def delete(self, key: str) -> None:
        table, rid = self.rows.pop(key)
        self.fake.delete(table, rid)

    def archive(self, key: str) -> None:
        self._update(key, deleted_at=self.fake.tick(0))

    def move(self, key: str, container: str) -> None:
        """Rows do not move between tables: the row is copied to the other table (a new id
        there) and deleted from its old one, in one transaction."""
        table, rid = self.rows[key]
        row = self.fake.tables[table][rid]
        self.delete(key)
        self._insert(
            key, self._table(container), {k: row[k] for k in ("client_id", "title", "body")}
        )

    def move_scope(self, key: str, scope: str) -> None:
        self._update(key, client_id=None if scope == "internal" else scope)

    def rename(self, key: str, title: str) -> None:
        self._update(key, title=title)

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        self._insert(
            key,
            self._table("a"),
            {
                "client_id": None,
                "title": title,
                "body": text,
                "updated_at": "2020-01-01T00:00:00+00:00",
            },
        )

    def child_change(self, key: str, text: str) -> None:
        raise NotApplicable(
            "a row has no children; related rows are rows of their own "
            "configured table, and a column edited without an updated_at "
            "trigger is read by tables configured with updated_column: null"
        )

    # -- paging --------------------------------------------------------------------------
    def awkward_paging(self) -> None:
        """db-max-rows below the page size asked for (every page comes back short), and all
        writes between two requests in one transaction (equal updated_at)."""
        self.fake.max_rows = 2
        self.fake.frozen = True

    # -- failures ------------------------------------------------------------------------
    def vanish(self, key: str) -> None:
        raise NotApplicable(
            "a row has no sub-resource; a table answering 404 is a container "
            "gone (the 'container gone' scenario), an inferred deletion"
        )

    def vanish_container(self) -> None:
        """PostgREST's answer for a dropped table, and for one its stale schema cache lacks."""
        body = {
            "code": "PGRST205",
            "details": None,
            "hint": None,
            "message": f"Could not find the table 'public.{CONTAINER_B}' in the schema cache",
        }
        self.fake.inject(f"/rest/v1/{CONTAINER_B}", 404, body, times=None)

    def restore_container(self) -> None:
        self.fake.uninject(f"/rest/v1/{CONTAINER_B}")

    def refuse_credential(self) -> None:
        """The service key revoked while the run reads its tables: the fourth table on."""
        body = {"code": "PGRST301", "details": None, "hint": None, "message": "Invalid API key"}
        for table in (CONTAINER_A[3], CONTAINER_B):
            self.fake.inject(f"/rest/v1/{table}", 401, body, times=None)

    def accept_credential(self) -> None:
        for table in (CONTAINER_A[3], CONTAINER_B):
            self.fake.uninject(f"/rest/v1/{table}")

    def break_item(self, key: str) -> None:
        body = {"code": "XX000", "details": None, "hint": None, "message": "internal error"}
        self.fake.inject(f"/rest/v1/{self.rows[key][0]}", 500, body, times=None)

    def mend(self, key: str) -> None:
        self.fake.clear_injections()

    def rate_limit(self, *, retry_after: bool) -> None:
        headers = {"Retry-After": "1"} if retry_after else {}
        self.fake.inject("/rest/v1/", 429, {"message": "Too many requests"}, headers=headers)

    def server_errors(self, count: int) -> None:
        body = {"code": "08006", "details": None, "hint": None, "message": "connection failure"}
        self.fake.inject("/rest/v1/", 503, body, times=count)
