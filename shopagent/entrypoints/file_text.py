"""The text of a file a shop owner saved from a spreadsheet: UTF-8 (with or without a byte order
mark), UTF-16 with its byte order mark (Excel's "Unicode text"), else Windows-1252 (what Excel
writes as "CSV" in Western European locales; a superset of Latin-1's printable characters).

A strict UTF-8 decode is the test: text in a legacy encoding with any accented letter is
practically never valid UTF-8. Statistical detectors were tried and guess wrong on files this
short (a German "Wollmütze" line read as Baltic cp775, French "Crème" as Central European
cp1250), so there is no guessing past these: what none of them reads is refused with its line.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from shopagent.domain.errors import ValidationError

UTF8 = "UTF-8"
UTF8_BOM = "UTF-8 with a byte order mark"
UTF16 = "UTF-16"
WINDOWS_1252 = "Windows-1252"
SAVE_AS_CSV = "save it as CSV (File > Save As > CSV UTF-8) and import that file"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # the C0/C1 controls but tab, LF, CR
_WORKBOOKS = {
    b"PK\x03\x04": "an Excel workbook (.xlsx) or another zip archive",
    b"\xd0\xcf\x11\xe0": "an old Excel workbook (.xls)",
}


@dataclass(frozen=True)
class FileText:
    text: str
    encoding: str  # one of the names above, for people


def decode_file_text(name: str, data: bytes) -> FileText:
    """The text in `data` and how it was read; ValidationError naming the line it cannot read."""
    for magic, what in _WORKBOOKS.items():
        if data.startswith(magic):
            raise ValidationError(f"{name} is {what}, not a text file; {SAVE_AS_CSV}")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        found = FileText(_decode(name, data, "utf-16", UTF16), UTF16)
    elif data.startswith(codecs.BOM_UTF8):
        found = FileText(_decode(name, data[len(codecs.BOM_UTF8) :], "utf-8", UTF8_BOM), UTF8_BOM)
    else:
        try:
            found = FileText(data.decode("utf-8"), UTF8)
        except UnicodeDecodeError as exc:
            _refuse_mixed(name, data, exc)
            found = FileText(_decode(name, data, "cp1252", WINDOWS_1252), WINDOWS_1252)
    _check_characters(name, found.text)
    return found


def _decode(name: str, data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        where = data[: exc.start].decode(codec, errors="replace").count("\n") + 1
        raise ValidationError(
            f"{name} line {where}: byte 0x{data[exc.start]:02X} is not {label} text; {SAVE_AS_CSV}"
        ) from None


def _refuse_mixed(name: str, data: bytes, exc: UnicodeDecodeError) -> None:
    """A file with UTF-8 lines and lines in another encoding (two exports pasted together) would
    come out garbled either way."""
    for number, line in enumerate(data.splitlines(), start=1):
        if line.isascii():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            continue
        raise ValidationError(
            f"{name} mixes encodings: line {number} is UTF-8, line {_line_of(data, exc.start)} is not; {SAVE_AS_CSV}"
        )


def _check_characters(name: str, text: str) -> None:
    if (found := _CONTROL.search(text)) is not None:
        line = text.count("\n", 0, found.start()) + 1
        raise ValidationError(
            f"{name} line {line}: contains a control character (U+{ord(found[0]):04X}), which no text file holds; "
            f"{SAVE_AS_CSV}"
        )


def _line_of(data: bytes, offset: int) -> int:
    return data[:offset].count(b"\n") + 1
