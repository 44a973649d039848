"""Per-file limits, and reading a file without ever holding more than the size cap."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge_platform.errors import FileTooLargeError

MB = 1024 * 1024


class ConvertLimits(BaseModel):
    """What one file may cost. A registry source can carry these as its settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Size cap: a larger file is skipped and never read whole.
    max_bytes: int = Field(default=25 * MB, gt=0)
    #: A DOCX/PPTX/XLSX zip whose members would unpack to more than this is a bomb.
    max_unpacked_bytes: int = Field(default=256 * MB, gt=0)
    #: ...and so is one whose member (past 1 MB) unpacks more than this many times its packed
    #: size (Apache POI's ZipSecureFile default: 0.01 minimum inflate ratio).
    max_ratio: float = Field(default=100.0, gt=1)
    #: Wall-clock time for one file's conversion; past it the worker is killed.
    timeout_seconds: float = Field(default=120.0, gt=0)
    #: Address space a conversion may add to its worker (RLIMIT_AS above the worker's own).
    memory_mb: int = Field(default=1024, gt=0)
    #: XLSX: data rows kept per sheet after the header row (the brief's rule for sheets).
    max_rows: int = Field(default=100, ge=0)
    #: Office files that carry VBA macros are skipped (their macros are never run either way).
    skip_macros: bool = True


def check_size(size: int | None, limits: ConvertLimits, name: str = "") -> None:
    """FileTooLargeError when a listing's declared size is past the cap: skip before download."""
    if size is not None and size > limits.max_bytes:
        raise FileTooLargeError(
            f"{name or 'file'}: {size / MB:.1f} MB is over the {limits.max_bytes / MB:g} MB cap"
        )


def read_capped(chunks: Iterable[bytes], limits: ConvertLimits, name: str = "") -> bytes:
    """Join a download's chunks, stopping with FileTooLargeError as soon as they pass the cap
    (a server that understates the size or sends none still costs at most cap + one chunk)."""
    parts: list[bytes] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limits.max_bytes:
            raise FileTooLargeError(
                f"{name or 'file'}: more than the {limits.max_bytes / MB:g} MB cap; not read"
            )
        parts.append(chunk)
    return b"".join(parts)


def read_path(path: Path, limits: ConvertLimits) -> bytes:
    """A local file's bytes, or FileTooLargeError from its size alone (it is not opened)."""
    check_size(path.stat().st_size, limits, path.name)
    with path.open("rb") as handle:
        return read_capped(iter(lambda: handle.read(MB), b""), limits, path.name)
