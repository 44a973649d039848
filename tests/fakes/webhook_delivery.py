"""Delivering webhooks from a fake, as the real services do: asynchronously (a worker thread),
over real HTTP, with the source's retries; every attempt is logged for tests."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx


@dataclass
class Attempt:
    url: str
    status: int | None
    body: str
    headers: dict[str, str]
    error: str | None = None
    #: seconds until the answer (or the failure)
    elapsed: float = 0.0


@dataclass
class Delivery:
    url: str
    body: bytes
    headers: dict[str, str]
    #: called once with the final status (None: unreachable) after the retries
    done: Callable[[int | None], None] = lambda _status: None
    attempts: int = 5
    retry_delay: float = 0.05
    sent: list[Attempt] = field(default_factory=list)


class Deliverer:
    def __init__(self) -> None:
        self.attempts: list[Attempt] = []
        self._queue: queue.Queue[Delivery | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, delivery: Delivery) -> None:
        self._queue.put(delivery)

    def wait(self, timeout: float = 10.0) -> None:
        """Until every delivery queued so far has been made (or given up)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)

    def _run(self) -> None:
        with httpx.Client(timeout=7.0) as client:  # ClickUp: slower than 7 s is a failure
            while True:
                item = self._queue.get()
                if item is None:
                    return
                try:
                    item.done(self._deliver(client, item))
                finally:
                    self._queue.task_done()

    def _deliver(self, client: httpx.Client, item: Delivery) -> int | None:
        status: int | None = None
        for attempt in range(item.attempts):
            started = time.monotonic()
            try:
                response = client.post(item.url, content=item.body, headers=item.headers)
                status = response.status_code
                self.attempts.append(
                    Attempt(
                        item.url,
                        status,
                        response.text,
                        item.headers,
                        elapsed=time.monotonic() - started,
                    )
                )
            except httpx.HTTPError as exc:
                status = None
                self.attempts.append(
                    Attempt(item.url, None, "", item.headers, str(exc), time.monotonic() - started)
                )
            if status is not None and (200 <= status < 300 or status == 410):
                return status
            if attempt + 1 < item.attempts:
                time.sleep(item.retry_delay * 2**attempt)
        return status
