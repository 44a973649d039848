"""Memory files: a folder per scope, subfolders as containers, a file per item (no heading, so
the file name is the title)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conformance.harness import NotApplicable, SourceHarness


class MemoryFilesHarness(SourceHarness):
    name = "memory_files"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.roots = {scope: self.tmp_path / f"ws-{scope}" for scope in ("internal", "acme")}
        for root in self.roots.values():
            root.mkdir()
        self.paths: dict[str, Path] = {}
        self.texts: dict[str, str] = {}

    def settings(self, scope: str) -> dict[str, Any]:
        return {"path": str(self.roots[scope])}

    def _write(self, key: str, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
        self.paths[key], self.texts[key] = path, text

    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None:
        self._write(key, self.roots[scope] / container / f"{title}.md", text)

    def edit(self, key: str, text: str) -> None:
        self._write(key, self.paths[key], text)

    def delete(self, key: str) -> None:
        self.paths.pop(key).unlink()

    def archive(self, key: str) -> None:
        raise NotApplicable("a memory file has no archived state; removal is deletion")

    def _relocate(self, key: str, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        self.paths[key] = self.paths[key].rename(target)

    def move(self, key: str, container: str) -> None:
        path = self.paths[key]
        self._relocate(key, path.parent.parent / container / path.name)

    def move_scope(self, key: str, scope: str) -> None:
        path = self.paths[key]
        self._relocate(key, self.roots[scope] / path.parent.name / path.name)

    def rename(self, key: str, title: str) -> None:
        self._relocate(key, self.paths[key].with_name(f"{title}.md"))

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        self._write(key, self.roots["internal"] / "new-folder" / "deeper" / f"{title}.md", text)

    def break_item(self, key: str) -> None:
        self.paths[key].write_bytes(b"\xff\xfe not UTF-8 \xc3\x28")

    def mend(self, key: str) -> None:
        self._write(key, self.paths[key], self.texts[key])
