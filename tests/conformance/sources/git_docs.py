"""Git docs: one repository, `internal/` and `acme/` read by each scope's globs, a folder per
container, a committed file per item (no heading, so the file name is the title). Every step
is a commit."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import NotApplicable, SourceHarness
from tests.integration.test_git_docs import git


class GitDocsHarness(SourceHarness):
    name = "git_docs"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.repo = self.tmp_path / "handbook"
        self.repo.mkdir()
        git(self.repo, "init", "-q", "-b", "main")
        (self.repo / "README.md").write_text("Handbook root, read by no scope.\n")
        self._commit("initial")
        self.paths: dict[str, str] = {}
        self.texts: dict[str, str] = {}

    def settings(self, scope: str) -> dict[str, Any]:
        return {"repo": str(self.repo), "branch": "main", "globs": [f"{scope}/**/*.md"]}

    def _commit(self, message: str) -> None:
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "-m", message)

    def _write(self, key: str, rel: str, data: str | bytes) -> None:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data + "\n")
            self.texts[key] = data
        self.paths[key] = rel
        self._commit(f"write {rel}")

    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None:
        self._write(key, f"{scope}/{container}/{title}.md", text)

    def edit(self, key: str, text: str) -> None:
        self._write(key, self.paths[key], text)

    def delete(self, key: str) -> None:
        git(self.repo, "rm", "-q", self.paths.pop(key))
        self._commit(f"delete {key}")

    def archive(self, key: str) -> None:
        raise NotApplicable(
            "git has no archive; a retired record is deleted or marked "
            "deprecated in its front matter (a lifecycle, not a removal)"
        )

    def _mv(self, key: str, rel: str) -> None:
        (self.repo / rel).parent.mkdir(parents=True, exist_ok=True)
        git(self.repo, "mv", self.paths[key], rel)
        self.paths[key] = rel
        self._commit(f"move {key}")

    def move(self, key: str, container: str) -> None:
        scope, _, name = self.paths[key].split("/", 2)
        self._mv(key, f"{scope}/{container}/{name}")

    def move_scope(self, key: str, scope: str) -> None:
        _, container, name = self.paths[key].split("/", 2)
        self._mv(key, f"{scope}/{container}/{name}")

    def rename(self, key: str, title: str) -> None:
        folder = self.paths[key].rsplit("/", 1)[0]
        self._mv(key, f"{folder}/{title}.md")

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        self._write(key, f"internal/new-folder/deeper/{title}.md", text)

    def break_item(self, key: str) -> None:
        self._write(key, self.paths[key], b"\xff\xfe not UTF-8 \xc3\x28")

    def mend(self, key: str) -> None:
        self._write(key, self.paths[key], self.texts[key])
