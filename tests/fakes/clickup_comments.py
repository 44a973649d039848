"""Task comments in the ClickUp fake, as documented: `GET /task/{id}/comment` returns the 25
newest, newest first, the next page asked for with `start`/`start_id` of the oldest one (the
end is a page of fewer than 25); each comment carries `reply_count`; threaded replies come from
`GET /comment/{id}/reply` and never appear in the task's listing. Neither a comment nor a reply
bumps the task's `date_updated` (ClickUp does not document that it does)."""

from __future__ import annotations

import itertools
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import json_response

COMMENTS_PER_PAGE = 25


def _err(status: int, err: str, code: str) -> Response:
    return json_response({"err": err, "ECODE": code}, status)


class ClickUpCommentsMixin:
    """Comment state and routes; the fake server mixes it in."""

    comments: dict[str, list[dict[str, Any]]]
    replies: dict[str, list[dict[str, Any]]]
    _ids: itertools.count[int]

    def tick(self) -> str:
        raise NotImplementedError

    def _missing_task(self, task_id: str) -> Response | None:
        raise NotImplementedError

    def _init_comments(self) -> None:
        self.comments = {}
        self.replies = {}

    def _comments_routes(self) -> list[tuple[str, Any]]:
        return [(r"/api/v2/task/([^/]+)/comment", self._comments),
                (r"/api/v2/comment/([^/]+)/reply", self._replies)]  # fmt: skip

    def _comment(self, text: str, user: str) -> dict[str, Any]:
        return {
            "id": str(next(self._ids) + 1000), "comment": [{"text": text, "attributes": {}}],
            "comment_text": text,
            "user": {"id": 7, "username": user, "email": f"{user}@example.com"},
            "resolved": False, "assignee": None, "assigned_by": None, "reactions": [],
            "date": self.tick(), "reply_count": 0,
        }  # fmt: skip

    def add_comment(self, task_id: str, text: str, user: str = "bob") -> str:
        """A new comment; the task's date_updated stays as it was."""
        comment = self._comment(text, user)
        self.comments.setdefault(task_id, []).append(comment)
        return comment["id"]

    def add_reply(self, comment_id: str, text: str, user: str = "carol") -> str:
        """A threaded reply: the parent's `reply_count` grows; nothing else changes."""
        parent = next(c for cs in self.comments.values() for c in cs if c["id"] == comment_id)
        reply = self._comment(text, user)
        reply.pop("reply_count")
        self.replies.setdefault(comment_id, []).append(reply)
        parent["reply_count"] = len(self.replies[comment_id])
        return reply["id"]

    def _replies(self, _: Request, comment_id: str) -> Response:
        if not any(c["id"] == comment_id for cs in self.comments.values() for c in cs):
            return _err(404, "Comment not found", "ITEM_404")
        return json_response({"comments": self.replies.get(comment_id, [])})

    def _comments(self, request: Request, task_id: str) -> Response:
        if (missing := self._missing_task(task_id)) is not None:
            return missing
        ordered = sorted(self.comments.get(task_id, []),
                         key=lambda c: (int(c["date"]), int(c["id"])), reverse=True)  # fmt: skip
        start, start_id = request.args.get("start"), request.args.get("start_id")
        if start is not None and start_id is not None:
            mark = (int(start), int(start_id))
            ordered = [c for c in ordered if (int(c["date"]), int(c["id"])) < mark]
        return json_response({"comments": ordered[:COMMENTS_PER_PAGE]})
