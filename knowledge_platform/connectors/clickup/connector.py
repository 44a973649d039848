"""ClickUp: one document per task (v2 API), one per Docs page (v3 API) and one per task
attachment of a type the converter reads (attachments.py).

Every run, full or ordinary, resolves the scope's containers, sweeps every list (tasks.py)
and every doc (docs.py). A full pull returns every document (`full=True`); an ordinary run
returns what is new or changed, what ClickUp confirmed gone (`deleted`: 404, archived, moved
out of the scope) and what vanished without a confirmation (`missing`). See the ClickUp
section of docs/sync-contract.md.
"""

from __future__ import annotations

import httpx

from knowledge_platform.connectors.base import NOTHING_KNOWN, Hint, Known, PullResult
from knowledge_platform.connectors.clickup.api import ClickUpApi
from knowledge_platform.connectors.clickup.attachments import PREFIX
from knowledge_platform.connectors.clickup.containers import Containers, resolve
from knowledge_platform.connectors.clickup.cursor import ClickUpCursor
from knowledge_platform.connectors.clickup.docs import DocSync
from knowledge_platform.connectors.clickup.run import Budget, Run
from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.connectors.clickup.tasks import TaskSync
from knowledge_platform.connectors.http import HttpClient, HttpConnector, ratelimit_reset_wait

#: ECODEs of a 401 that refuse the token itself (missing, unknown, revoked, expired: the
#: reference's OAUTH_017/019/021/025/077), unlike OAUTH_027 & co. for one item it cannot see.
TOKEN_REFUSED = frozenset({"OAUTH_017", "OAUTH_019", "OAUTH_021", "OAUTH_025", "OAUTH_077"})


def token_refused(response: httpx.Response) -> bool:
    """ClickUp's 401 refusing the token: the whole run fails. (An attachment host's bare 401
    is one file's failure.)"""
    if response.status_code != 401:
        return False
    try:
        data = response.json()
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("ECODE") in TOKEN_REFUSED


def auth_header(token: str, kind: str) -> str:
    if token.startswith("Bearer "):
        return token
    if kind == "oauth" or (kind == "auto" and not token.startswith("pk_")):
        return f"Bearer {token}"
    return token


class ClickUpConnector(HttpConnector[ClickUpCursor]):
    name = "clickup"
    settings_model = ClickUpSettings
    cursor_model = ClickUpCursor
    settings: ClickUpSettings

    @property
    def cfg(self) -> ClickUpSettings:
        return self.settings

    def client(self) -> HttpClient:
        """The HTTP client every ClickUp call goes through, authorised with the token."""
        cfg = self.cfg
        token = cfg.resolve_secret("token", owner="clickup", what="ClickUp API token")
        return HttpClient.from_settings(
            "clickup",
            cfg,
            headers={"Authorization": auth_header(token, cfg.token_kind)},
            rate_limit_wait=ratelimit_reset_wait,
            refused=token_refused,
            auth_hint=f"check the ClickUp token in {cfg.secret('token')} "
            f"(token_kind={cfg.token_kind})",
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )

    def pull(
        self, cursor: ClickUpCursor | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[ClickUpCursor]:
        with self.client() as http:
            api = ClickUpApi(http, self.cfg)
            result = self._pull(api, cursor or ClickUpCursor(), full or cursor is None, known)
            http.raise_if_refused()  # a revoked token on one item fails the whole run
            return result

    def pull_hinted(
        self, cursor: ClickUpCursor, hint: Hint, known: Known = NOTHING_KNOWN
    ) -> PullResult[ClickUpCursor] | None:
        """The tasks webhooks named, each looked up by id (no listing, no docs): edits and
        new tasks read, deletions and moves out of the scope confirmed. The lists the last
        run resolved say what is in the scope; a task in any other list resolves them again."""
        ids = {i for i in hint.ids | hint.deleted if not i.startswith(("doc:", PREFIX))}
        if not ids or cursor.lists is None:
            return None
        with self.client() as http:
            api = ClickUpApi(http, self.cfg)
            known_lists = Containers((), (), (), cursor.lists)
            run = Run(api, self.scope, known_lists, known, False, Budget(0))
            tasks = TaskSync(
                run, dict(cursor.threads_read), cursor.run + 1, dict(cursor.attachments)
            )
            found = tasks.pull_ids(ids, hint.deleted, lambda: resolve(api))
            http.raise_if_refused()
            return PullResult(
                documents=found.documents,
                full=False,
                deleted=sorted(set(found.deleted)),
                skipped=found.skipped,
                cursor=_cursor(tasks),
                requests=api.requests,
            )

    def _pull(self, api: ClickUpApi, cursor: ClickUpCursor, full: bool,
              known: Known) -> PullResult[ClickUpCursor]:  # fmt: skip
        containers = resolve(api)
        run = Run(api, self.scope, containers, known, full, Budget(self.cfg.max_verifications))
        tasks = TaskSync(run, dict(cursor.threads_read), cursor.run + 1, dict(cursor.attachments))
        found = tasks.pull()
        docs = DocSync(run).pull()
        return PullResult(
            documents=[*found.documents, *docs.documents],
            full=full,
            deleted=sorted({*found.deleted, *docs.deleted}),
            missing=sorted({*found.missing, *docs.missing}),
            skipped=[*found.skipped, *docs.skipped],
            cursor=_cursor(tasks),
            requests=api.requests,
        )


def _cursor(tasks: TaskSync) -> ClickUpCursor:
    return ClickUpCursor(
        run=tasks.run_no,
        lists=tasks.containers.lists,
        threads_read=tasks.threads_read,
        attachments=tasks.attachments.verdicts,
    )
