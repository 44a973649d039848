"""Push notifications in the Google fake (developers.google.com/drive push notifications):
`POST /drive/v3/changes/watch?pageToken=...[&driveId=...]` with `{id, type: "web_hook",
address, token?, expiration?}` opens a channel on that change log (ids unique; expiration in
ms, at most a week, an hour when not asked) and answers the channel (`kind: api#channel`, id,
resourceId, resourceUri, token, expiration); `POST /drive/v3/channels/stop` with `{id,
resourceId}` closes one (204). A new channel gets a `sync` message; every later change in its
log a `change` message: an empty POST with X-Goog-Channel-ID, X-Goog-Channel-Token (when
set), X-Goog-Channel-Expiration (RFC 1123), X-Goog-Resource-ID, X-Goog-Resource-URI,
X-Goog-Resource-State and X-Goog-Message-Number (1 for sync, then increasing). An expired
channel sends nothing. Unlike Google, the fake delivers to http:// addresses (loopback)."""

from __future__ import annotations

import email.utils
import time
import uuid
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.google_content import GoogleApiError, json_response
from tests.fakes.webhook_delivery import Deliverer, Delivery

WEEK_MS = 7 * 86400 * 1000
HOUR_MS = 3600 * 1000


class DriveWatchMixin:
    channels: dict[str, dict[str, Any]]

    def _init_watch(self) -> None:
        self.channels = {}
        if not hasattr(self, "deliverer"):
            self.deliverer = Deliverer()

    def _changes_watch(self, request: Request) -> Response:
        if not request.args.get("pageToken"):
            raise GoogleApiError(400, "Required parameter: pageToken", "required")
        body = request.get_json(silent=True) or {}
        cid, kind, address = body.get("id"), body.get("type"), body.get("address")
        if not cid or kind not in ("web_hook", "webhook") or not address:
            raise GoogleApiError(
                400, "Invalid channel: id, type web_hook and address are required", "invalid"
            )
        if cid in self.channels:
            raise GoogleApiError(400, f"Channel id {cid} not unique", "channelIdNotUnique")
        now = int(time.time() * 1000)
        asked = int(body.get("expiration") or now + HOUR_MS)
        drive_id = request.args.get("driveId")
        channel = {
            "kind": "api#channel",
            "id": cid,
            "resourceId": uuid.uuid4().hex[:27],
            "resourceUri": f"https://www.googleapis.com/drive/v3/changes?pageToken="
            f"{request.args['pageToken']}&alt=json",
            "expiration": str(min(asked, now + WEEK_MS)),
        }
        if body.get("token"):
            channel["token"] = body["token"]
        self.channels[cid] = {**channel, "address": address, "log": drive_id, "number": 0}
        self._notify(self.channels[cid], "sync")
        return json_response(channel)

    def _channels_stop(self, request: Request) -> Response:
        body = request.get_json(silent=True) or {}
        channel = self.channels.get(body.get("id", ""))
        if channel is None or channel["resourceId"] != body.get("resourceId"):
            raise GoogleApiError(404, "Channel not found", "notFound")
        del self.channels[channel["id"]]
        return Response(status=204)

    def notify_change(self, log: str | None) -> None:
        """Called for every logged change: a `change` message to each live channel on it."""
        for channel in list(getattr(self, "channels", {}).values()):
            if channel["log"] == log:
                self._notify(channel, "change")

    def _notify(self, channel: dict[str, Any], state: str) -> None:
        expires = int(channel["expiration"]) / 1000
        if expires < time.time():
            return
        channel["number"] += 1
        headers = {
            "X-Goog-Channel-ID": channel["id"],
            "X-Goog-Channel-Expiration": email.utils.formatdate(expires, usegmt=True),
            "X-Goog-Resource-ID": channel["resourceId"],
            "X-Goog-Resource-URI": channel["resourceUri"],
            "X-Goog-Resource-State": state,
            "X-Goog-Message-Number": str(channel["number"]),
        }
        if channel.get("token"):
            headers["X-Goog-Channel-Token"] = channel["token"]
        self.deliverer.send(Delivery(channel["address"], b"", headers))

    def wait_deliveries(self, timeout: float = 10.0) -> None:
        self.deliverer.wait(timeout)
