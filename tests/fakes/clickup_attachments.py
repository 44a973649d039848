"""Task attachments in the ClickUp fake, as documented: "Tasks with attachments will return an
attachments array in the response" of `GET /task/{id}` (Get Task); the Get Tasks listing does
not say it carries them, so it does not here. Each attachment object has the fields ClickUp
returns (id, version, date, title, extension, mimetype, size, url, url_w_query, url_w_host,
parent_id, deleted, user, thumbnails...); an uploaded file's `url` is served by this fake
(ClickUp serves them from its attachments host) to the same token as the API; a file linked
from another service (Google Drive, Dropbox...) points there instead. Adding or removing an
attachment does not move the task's `date_updated` (ClickUp does not document that it does;
the strict reading, as for comments). The attachment API has no delete: a person removes one
in the app and it leaves the task's array."""

from __future__ import annotations

import uuid
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import json_response


class ClickUpAttachmentsMixin:
    """Attachment state and the download route; the fake server mixes it in."""

    attachments: dict[str, list[dict[str, Any]]]
    files: dict[str, bytes]

    def tick(self) -> str:
        raise NotImplementedError

    if TYPE_CHECKING:  # FakeServer's, later in the fake's bases

        def url(self, path: str = "") -> str: ...

    def _init_attachments(self) -> None:
        self.attachments = {}
        self.files = {}

    def _attachments_routes(self) -> list[tuple[str, Any]]:
        return [(r"/attachments/([^/]+)/[^/]+", self._download)]

    def add_attachment(
        self,
        task_id: str,
        title: str,
        data: bytes = b"",
        *,
        mimetype: str | None = None,
        size: int | None = None,
        linked_url: str | None = None,
    ) -> str:
        """An uploaded file on the task (or, with `linked_url`, a file linked from another
        service). `size`: what the attachment object says, when it is not the data's length
        (a 2 GB upload without holding 2 GB). The task's date_updated stays as it was."""
        extension = PurePosixPath(title).suffix.lstrip(".") or "bin"
        att_id = f"{uuid.uuid4()}.{extension}"
        url = linked_url or self.url(f"/attachments/{att_id}/{title}")
        self.attachments.setdefault(task_id, []).append({
            "id": att_id, "version": "0", "date": self.tick(), "title": title,
            "type": 1 if linked_url is None else 2, "source": 1 if linked_url is None else 3,
            "extension": extension, "thumbnail_small": None, "thumbnail_medium": None,
            "thumbnail_large": None, "is_folder": None, "mimetype": mimetype,
            "hidden": False, "parent_id": task_id,
            "size": len(data) if size is None else size, "total_comments": 0,
            "resolved_comments": 0, "user": {"id": 7, "username": "bob"}, "deleted": False,
            "orientation": None, "url": url, "email_data": None,
            "url_w_query": f"{url}?view=open", "url_w_host": url,
        })  # fmt: skip
        if linked_url is None:
            self.files[att_id] = data
        return att_id

    def remove_attachment(self, task_id: str, att_id: str) -> None:
        """Removed in the app: gone from the task's array; its URL answers 404."""
        self.attachments[task_id] = [a for a in self.attachments[task_id] if a["id"] != att_id]
        self.files.pop(att_id, None)

    def task_attachments(self, task_id: str) -> list[dict[str, Any]]:
        return [dict(a) for a in self.attachments.get(task_id, [])]

    def _download(self, _: Request, att_id: str) -> Response:
        if att_id not in self.files:
            return json_response({"err": "Attachment not found", "ECODE": "ATTCH_001"}, 404)
        return Response(self.files[att_id], 200, content_type="application/octet-stream")
