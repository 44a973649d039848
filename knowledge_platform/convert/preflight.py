"""Cheap checks on a file's bytes before any parser sees them: is it what it claims, is it
password-protected, would it unpack to a bomb, does it carry macros. Reads a zip's central
directory only; nothing is decompressed here."""

from __future__ import annotations

import io
import zipfile

from knowledge_platform.convert.limits import MB, ConvertLimits, check_size
from knowledge_platform.convert.result import Format
from knowledge_platform.errors import (
    CorruptFileError,
    DecompressionBombError,
    EncryptedFileError,
    MacrosError,
)

#: An OLE2 compound file: legacy .doc/.xls/.ppt, and the envelope Office puts around a
#: password-protected DOCX/PPTX/XLSX (its content sits in an `EncryptedPackage` stream).
_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
_MAIN_PART: dict[Format, str] = {
    "docx": "word/document.xml",
    "pptx": "ppt/presentation.xml",
    "xlsx": "xl/workbook.xml",
}
_MAX_MEMBERS = 10_000
_RATIO_FLOOR = 1 * MB  # members smaller than this are never judged by their ratio


def check(data: bytes, fmt: Format, name: str, limits: ConvertLimits) -> None:
    """Raise the ConversionError that says why `data` must be skipped, or return."""
    check_size(len(data), limits, name)
    if fmt == "pdf":
        if b"%PDF-" not in data[:1024]:
            raise CorruptFileError(f"{name}: not a PDF (no %PDF- header)")
        return
    _check_ooxml(data, fmt, name, limits)


def _check_ooxml(data: bytes, fmt: Format, name: str, limits: ConvertLimits) -> None:
    label = fmt.upper()
    if data.startswith(_CFB_MAGIC):
        if _ENCRYPTED_PACKAGE in data:
            raise EncryptedFileError(
                f"{name}: password-protected {label}; remove the password to index it"
            )
        raise CorruptFileError(
            f"{name}: a legacy binary Office file, not {label}; save it as .{fmt} to index it"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise CorruptFileError(f"{name}: not a valid {label} (broken zip: {exc})") from None
    names = {m.filename for m in members}
    if _MAIN_PART[fmt] not in names:
        raise CorruptFileError(f"{name}: not a valid {label} (no {_MAIN_PART[fmt]})")
    _check_bomb(members, name, limits)
    if limits.skip_macros and any(n.lower().endswith("vbaproject.bin") for n in names):
        raise MacrosError(f"{name}: contains VBA macros; skipped (macros are never run)")


def _check_bomb(members: list[zipfile.ZipInfo], name: str, limits: ConvertLimits) -> None:
    """By the sizes the zip declares: Python's zipfile never inflates a member past its
    declared size, so these bound what any parser can be made to unpack."""
    if len(members) > _MAX_MEMBERS:
        raise DecompressionBombError(f"{name}: {len(members)} zip members; at most {_MAX_MEMBERS}")
    total = sum(m.file_size for m in members)
    if total > limits.max_unpacked_bytes:
        raise DecompressionBombError(
            f"{name}: would unpack to {total / MB:.0f} MB, over the "
            f"{limits.max_unpacked_bytes / MB:g} MB limit"
        )
    for m in members:
        ratio = m.file_size / max(m.compress_size, 1)
        if m.file_size > _RATIO_FLOOR and ratio > limits.max_ratio:
            raise DecompressionBombError(
                f"{name}: {m.filename} unpacks {ratio:.0f} times its size "
                f"(limit {limits.max_ratio:g}); a decompression bomb"
            )
