"""The conversion helper process (`python -m knowledge_platform.convert.worker JOBS RESULTS`):
imports the converters once, then for each job forks a child that converts one file under
an address-space limit (RLIMIT_AS: its size at fork plus `memory_mb`) and a CPU limit, waits
at most `timeout_seconds` for its answer, kills it if need be, and replies. The helper is
single-threaded, so forking it is safe; it exits when its job pipe closes."""

from __future__ import annotations

import contextlib
import gc
import io
import logging
import math
import multiprocessing
import os
import resource
import signal
import sys
from multiprocessing.connection import Connection

from knowledge_platform.convert.inprocess import convert_here
from knowledge_platform.convert.limits import MB, ConvertLimits
from knowledge_platform.errors import ConversionError, ConversionLimitError, CorruptFileError

_FORK = multiprocessing.get_context("fork")
Reply = tuple[str, object]  # ("ok", Converted) | ("error", ConversionError)
#: The helper's own pipe ends: a child closes them, so a helper's death ends its pipes at once.
_helper_fds: list[int] = []


def serve(jobs: Connection, results: Connection) -> None:
    while True:
        try:
            data, mime_type, name, limits = jobs.recv()
        except (EOFError, OSError):
            return
        results.send(run_one(data, mime_type, name, limits))


def warm_up() -> None:
    """Convert a small DOCX, PPTX and XLSX once in the helper itself, so the libraries' lazy
    imports and caches are in place before any child is forked (~5-9 ms less per file)."""
    import docx
    import openpyxl
    import pptx

    document = docx.Document()
    document.add_heading("Warm", 1)
    document.add_table(rows=1, cols=1).cell(0, 0).text = "up"
    deck = pptx.Presentation()
    notes = deck.slides.add_slide(deck.slide_layouts[1]).notes_slide.notes_text_frame
    if notes is not None:
        notes.text = "up"
    book = openpyxl.Workbook()
    book.create_sheet("Warm").append(["warm", "up"])
    for fmt, thing in (("docx", document), ("pptx", deck), ("xlsx", book)):
        buf = io.BytesIO()
        thing.save(buf)
        with contextlib.suppress(ConversionError):
            convert_here(buf.getvalue(), "", f"warm-up.{fmt}")


def run_one(data: bytes, mime_type: str, name: str, limits: ConvertLimits) -> Reply:
    reader, writer = _FORK.Pipe(duplex=False)
    child = _FORK.Process(target=_work, args=(writer, data, mime_type, name, limits))
    child.start()
    writer.close()  # the child holds the only writer: its exit ends the pipe
    try:
        if not reader.poll(limits.timeout_seconds):
            return "error", ConversionLimitError(
                f"{name}: conversion took longer than {limits.timeout_seconds:g} s; stopped"
            )
        try:
            return reader.recv()
        except EOFError:
            child.join(5)
            return "error", ConversionLimitError(_death(name, child.exitcode, limits))
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        reader.close()
        child.close()


def _work(
    writer: Connection, data: bytes, mime_type: str, name: str, limits: ConvertLimits
) -> None:
    for fd in _helper_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    _limit(limits)
    try:
        reply: Reply = ("ok", convert_here(data, mime_type, name, limits))
    except ConversionError as exc:
        reply = ("error", exc)
    except MemoryError:
        reply = (
            "error",
            ConversionLimitError(
                f"{name}: conversion needed more than its {limits.memory_mb} MB memory limit"
            ),
        )
    except Exception as exc:  # a bug of ours, not the file's: still one line, still a skip
        reply = ("error", CorruptFileError(f"{name}: conversion failed ({exc!r:.200})"))
    writer.send(reply)
    writer.close()


def _limit(limits: ConvertLimits) -> None:
    """RLIMIT_AS = this process's address space now + memory_mb; RLIMIT_CPU a little past the
    timeout (for a child whose helper is gone). Where a limit cannot be set (not Linux) the
    helper's timeout still holds."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/statm") as statm:
            current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _lower(resource.RLIMIT_AS, current + limits.memory_mb * MB)
    with contextlib.suppress(OSError, ValueError):
        _lower(resource.RLIMIT_CPU, math.ceil(limits.timeout_seconds) + 5)


def _lower(which: int, soft: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _death(name: str, exitcode: int | None, limits: ConvertLimits) -> str:
    if exitcode is not None and exitcode < 0:
        signame = signal.Signals(-exitcode).name
        return (
            f"{name}: the conversion worker was killed by {signame} (limits "
            f"{limits.timeout_seconds:g} s, {limits.memory_mb} MB)"
        )
    return f"{name}: the conversion worker died (exit code {exitcode}) without an answer"


if __name__ == "__main__":
    logging.getLogger("pdfminer").setLevel(logging.ERROR)  # its warnings are not ours to show
    _helper_fds.extend(int(fd) for fd in sys.argv[1:3])
    warm_up()
    gc.freeze()  # children then copy fewer of the helper's pages (the gc docs' advice)
    serve(Connection(_helper_fds[0], writable=False), Connection(_helper_fds[1], readable=False))
