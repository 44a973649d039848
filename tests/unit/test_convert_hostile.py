"""Hostile and unreadable files are skipped with a named error and a one-line reason, through
the real conversion helper; a file past its time or memory limit is stopped and the next one
converts as usual."""

from __future__ import annotations

import io
import os
import threading
import time
import zipfile

import pytest
from msoffcrypto.format.ooxml import OOXMLFile

from knowledge_platform.convert import sandbox
from knowledge_platform.convert.api import ConvertLimits, convert, read_capped, read_path
from knowledge_platform.convert.limits import MB
from knowledge_platform.errors import (
    ConversionError,
    ConversionLimitError,
    CorruptFileError,
    DecompressionBombError,
    EncryptedFileError,
    FileTooLargeError,
    MacrosError,
    NoTextLayerError,
    UnsupportedFormatError,
)
from tests import office_files

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
XLSM = "application/vnd.ms-excel.sheet.macroEnabled.12"


def docx_bytes() -> bytes:
    return office_files.docx([("h1", "Brief"), ("p", "Launch the swatch test on Monday.")])


def password_protected(data: bytes) -> bytes:
    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt("hunter2", out)
    return out.getvalue()


def skip_reason(data: bytes, mime: str, name: str, error: type[ConversionError], **limits) -> str:
    with pytest.raises(error) as caught:
        convert(data, mime, name, limits=ConvertLimits(**limits))
    message = str(caught.value)
    assert message.startswith(name + ": ") and "\n" not in message
    return message


def test_encrypted_pdf_is_skipped_as_needing_a_password():
    data = office_files.pdf(["Confidential fee schedule."], password="hunter2")
    assert "needs a password" in skip_reason(data, PDF, "fees.pdf", EncryptedFileError)


def test_scanned_pdf_without_text_layer_says_ocr_is_not_enabled():
    data = office_files.pdf(["", ""], image_only=True)
    message = skip_reason(data, PDF, "scan.pdf", NoTextLayerError)
    assert "no text layer; OCR not enabled" in message and "2 with images" in message


def test_pdf_page_without_text_among_text_pages_is_noted_not_fatal():
    converted = convert(office_files.pdf(["Page one text.", " ", "Page three text."]), PDF, "m.pdf")
    assert [s.number for s in converted.sections] == [1, 3]
    assert converted.notes == ("no text layer on p. 2",)


@pytest.mark.parametrize(
    ("label", "make"),
    [
        ("truncated zip", lambda d: d[: len(d) // 2]),
        ("not a zip at all", lambda d: b"<html>this is an error page</html>" * 20),
        (
            "a zip without word/document.xml",
            lambda d: office_files.zip_with(office_files.xlsx({"S": [["a"]]}), {}),
        ),
    ],
)
def test_corrupt_zip_posing_as_docx(label, make):
    message = skip_reason(make(docx_bytes()), DOCX, "brief.docx", CorruptFileError)
    assert "not a valid DOCX" in message, label


def test_password_protected_docx_is_skipped_as_encrypted():
    message = skip_reason(password_protected(docx_bytes()), DOCX, "brief.docx", EncryptedFileError)
    assert "password-protected DOCX" in message


def test_zip_bomb_is_refused_from_the_declared_sizes_before_any_parsing():
    bomb = office_files.zip_with(docx_bytes(), {"word/media/fill.bin": bytes(40 * MB)})
    assert len(bomb) < MB  # 40 MB of zeros deflate to ~40 KB
    message = skip_reason(bomb, DOCX, "bomb.docx", DecompressionBombError)
    assert "word/media/fill.bin unpacks" in message
    assert "over the 8 MB limit" in skip_reason(
        office_files.zip_with(docx_bytes(), {"word/media/a.bin": b"x" * 9 * MB}),
        DOCX,
        "big.docx",
        DecompressionBombError,
        max_unpacked_bytes=8 * MB,
        max_ratio=1e9,
    )


def test_an_xml_entity_bomb_is_never_expanded():
    sheet = office_files.xlsx({"Plan": [["owner"], ["maya"]]})
    with zipfile.ZipFile(io.BytesIO(sheet)) as archive:
        part = archive.read("xl/worksheets/sheet1.xml").decode()
    entities = '<!ENTITY a "lol">' + "".join(  # &i; would be 10^8 "lol"s: 300 MB
        f'<!ENTITY {b} "{("&" + a + ";") * 10}">'
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    root = part.index("<worksheet")
    hostile = (f"<!DOCTYPE worksheet [{entities}]>" + part[root:]).replace(
        "<t>maya</t>", "<t>&i;</t>"
    )
    assert "&i;" in hostile
    bomb = office_files.zip_with(sheet, {"xl/worksheets/sheet1.xml": hostile.encode()})
    message = skip_reason(bomb, XLSX, "laughs.xlsx", CorruptFileError)
    assert "EntitiesForbidden" in message


def test_files_with_macros_are_skipped_and_never_run():
    sheet = office_files.xlsx({"Plan": [["step"], ["one"]]})
    macro = office_files.zip_with(sheet, {"xl/vbaProject.bin": b"Attribute VB_Name = x\n"})
    assert "VBA macros" in skip_reason(macro, XLSM, "plan.xlsm", MacrosError)
    # The same workbook without its macros converts.
    assert convert(sheet, XLSM, "plan.xlsm").sections[0].title == "Plan"


def test_over_the_size_cap_is_refused_without_reading_it_whole(tmp_path):
    limits = ConvertLimits(max_bytes=MB)
    served = []

    def download():  # a server sending 1 GB in 64 KB chunks, size undeclared
        for i in range(16 * 1024):
            served.append(i)
            yield b"%PDF-" if i == 0 else bytes(64 * 1024)

    with pytest.raises(FileTooLargeError, match=r"over\.pdf: more than the 1 MB cap"):
        read_capped(download(), limits, "over.pdf")
    assert len(served) == 17  # stopped one chunk past the cap
    big = tmp_path / "big.pdf"
    with big.open("wb") as handle:  # 2 GB, sparse: its size alone refuses it
        handle.truncate(2 * 1024 * MB)
    with pytest.raises(FileTooLargeError, match=r"big\.pdf: 2048\.0 MB is over the 25 MB cap"):
        read_path(big, ConvertLimits())
    assert "over the 1 MB cap" in skip_reason(
        b"%PDF-" + bytes(2 * MB), PDF, "a.pdf", FileTooLargeError, max_bytes=MB
    )


def test_unsupported_type_is_refused_with_the_types_that_are_read():
    message = skip_reason(
        b"\xd0\xcf\x11\xe0", "application/msword", "old.doc", UnsupportedFormatError
    )
    assert "application/msword is not converted (PDF, DOCX, PPTX and XLSX are)" in message


def test_a_file_past_its_time_limit_is_stopped_and_the_next_converts():
    # ~1 s to convert on an idle machine (20 pages took 0.4 s: a kill timer that fired late,
    # under load, found the file done and the test failed), so the kill lands mid-file
    slow = office_files.pdf([" ".join(f"word{i}" for i in range(300))] * 60)  # ~0.5-1.5 s
    convert(office_files.pdf(["Warm up."]), PDF, "warm.pdf")  # the helper is running
    started = time.perf_counter()
    message = skip_reason(slow, PDF, "slow.pdf", ConversionLimitError, timeout_seconds=0.1)
    assert "took longer than 0.1 s" in message
    assert time.perf_counter() - started < 2  # not the 120 s default, nor the whole parse
    assert convert(office_files.pdf(["Still fine."]), PDF, "next.pdf").units == 1


def test_a_pdf_decompression_bomb_is_stopped_by_the_memory_limit():
    bomb = office_files.pdf_flate_bomb(unpacked_mb=128)  # ~0.6 MB on disk
    message = skip_reason(bomb, PDF, "bomb.pdf", ConversionLimitError, memory_mb=64)
    assert "more than its 64 MB memory limit" in message
    assert convert(office_files.pdf(["Still fine."]), PDF, "next.pdf").units == 1


def test_a_helper_that_dies_mid_file_is_replaced_for_the_next_file():
    # ~4 s: the replacement helper imports the converters afresh (see test_convert.py).
    convert(office_files.pdf(["Warm up."]), PDF, "warm.pdf")
    helper = sandbox._helper
    assert helper is not None and helper.alive
    # ~1 s to convert on an idle machine (20 pages took 0.4 s: a kill timer that fired late,
    # under load, found the file done and the test failed), so the kill lands mid-file
    slow = office_files.pdf([" ".join(f"word{i}" for i in range(300))] * 60)
    killer = threading.Timer(0.3, helper.process.kill)
    killer.start()
    message = skip_reason(slow, PDF, "slow.pdf", ConversionLimitError)
    killer.join()
    assert "conversion helper stopped answering and was stopped" in message
    assert convert(office_files.pdf(["Still fine."]), PDF, "next.pdf").units == 1
    assert sandbox._helper is not helper and sandbox._helper.alive


def test_a_forked_copy_of_the_caller_starts_its_own_helper():
    # ~2-5 s: the forked child starts (imports) a helper of its own.
    convert(office_files.pdf(["Parent."]), PDF, "parent.pdf")
    parent_helper = sandbox._helper
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: lets go of the parent's helper pipes, starts its own helper
        try:
            ok = parent_helper.jobs.closed and parent_helper.results.closed
            ok = ok and convert(office_files.pdf(["Child."]), PDF, "child.pdf").units == 1
            ok = ok and sandbox._helper is not parent_helper
        finally:
            os.write(writer, b"1" if ok else b"0")
            os._exit(0)
    os.close(writer)
    assert os.read(reader, 1) == b"1"
    os.waitpid(pid, 0)
    assert sandbox._helper is parent_helper and parent_helper.alive
    assert convert(office_files.pdf(["Parent again."]), PDF, "again.pdf").units == 1
