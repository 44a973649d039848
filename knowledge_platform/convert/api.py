"""What connectors call: `convert(data, mime_type, name, limits=...)` -> `Converted`, in a
worker with a time and memory limit, or a ConversionError whose message is the skip reason.

Also here: `supported` (filter a listing before downloading), `check_size` (skip by a
listing's declared size), `read_capped`/`read_path` (read at most the cap), `locate` (the
page/slide/sheet of a chunk)."""

from __future__ import annotations

from knowledge_platform.convert.formats import detect, supported
from knowledge_platform.convert.inprocess import convert_here
from knowledge_platform.convert.limits import ConvertLimits, check_size, read_capped, read_path
from knowledge_platform.convert.result import Converted, Section, locate
from knowledge_platform.convert.sandbox import convert_isolated

__all__ = [
    "ConvertLimits",
    "Converted",
    "Section",
    "check_size",
    "convert",
    "convert_here",
    "locate",
    "read_capped",
    "read_path",
    "supported",
]


def convert(
    data: bytes, mime_type: str, name: str = "", *, limits: ConvertLimits | None = None
) -> Converted:
    """Convert one file in its own limited worker. Unsupported types and files over the
    size cap are refused here, before any worker starts."""
    limits = limits or ConvertLimits()
    name = name or "file"
    detect(mime_type, name)
    check_size(len(data), limits, name)
    return convert_isolated(data, mime_type, name, limits)
