"""The text of a file a shop owner saved from a spreadsheet: UTF-8 (with or without a byte order
mark), UTF-16 with its byte order mark (Excel's "Unicode text"), else Windows-1252 (what Excel
writes as "CSV" in Western European locales; a superset of Latin-1's printable characters).

A strict UTF-8 decode is the test: text in a legacy encoding with any accented letter is
practically never valid UTF-8. Statistical detectors were tried and guess wrong on files this
short (a German "Wollmütze" line read as Baltic cp775, French "Crème" as Central European
cp1250), so there is no guessing past these: what none of them reads is refused with its line.

`scan_encoding` decides it reading the file through once, a line (UTF-16: a block) at a time, so
a large file is then read as a text stream without ever being held whole.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import BinaryIO

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
class FileEncoding:
    label: str  # one of the names above, for people
    codec: str  # Python's name for it; it reads the text without its byte order mark


def scan_encoding(name: str, file: BinaryIO) -> FileEncoding:
    """How the text in the (seekable) `file` is encoded, read through once and left at its start;
    ValidationError naming the line it cannot read."""
    start = file.read(4)
    for magic, what in _WORKBOOKS.items():
        if start.startswith(magic):
            raise ValidationError(f"{name} is {what}, not a text file; {SAVE_AS_CSV}")
    file.seek(0)
    if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        found = FileEncoding(UTF16, "utf-16")
        _scan_utf16(name, file)
    elif start.startswith(codecs.BOM_UTF8):
        found = FileEncoding(UTF8_BOM, "utf-8-sig")
        _scan_utf8(name, file)
    else:
        found = _scan_unmarked(name, file)
    file.seek(0)
    return found


def _scan_utf8(name: str, file: BinaryIO) -> None:
    """A file with the UTF-8 byte order mark: every line must be UTF-8 (a character never spans
    lines: the line feed is one byte and no part of another character)."""
    file.seek(len(codecs.BOM_UTF8))
    control = _Control()
    for number, line in enumerate(file, start=1):
        try:
            control.check(number, line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ValidationError(
                f"{name} line {number}: byte 0x{line[exc.start]:02X} is not {UTF8_BOM} text; {SAVE_AS_CSV}"
            ) from None
    control.refuse(name)


def _scan_unmarked(name: str, file: BinaryIO) -> FileEncoding:
    """UTF-8 if every line is; else Windows-1252, unless some line is UTF-8 beside them."""
    utf8_line = other_line = 0  # the first non-ASCII line that is UTF-8, the first that is not
    unreadable: tuple[int, int] | None = None  # (line, byte) Windows-1252 cannot read either
    as_utf8, as_1252 = _Control(), _Control()
    for number, line in enumerate(file, start=1):
        if line.isascii():
            text = line.decode("ascii")
            as_utf8.check(number, text)
            as_1252.check(number, text)
            continue
        try:
            as_utf8.check(number, line.decode("utf-8"))
            utf8_line = utf8_line or number
        except UnicodeDecodeError:
            other_line = other_line or number
            try:
                as_1252.check(number, line.decode("cp1252"))
            except UnicodeDecodeError as exc:
                unreadable = unreadable or (number, line[exc.start])
    if not other_line:
        as_utf8.refuse(name)
        return FileEncoding(UTF8, "utf-8")
    if utf8_line:  # two exports pasted together would come out garbled either way
        raise ValidationError(
            f"{name} mixes encodings: line {utf8_line} is UTF-8, line {other_line} is not; {SAVE_AS_CSV}"
        )
    if unreadable is not None:
        raise ValidationError(
            f"{name} line {unreadable[0]}: byte 0x{unreadable[1]:02X} is not {WINDOWS_1252} text; {SAVE_AS_CSV}"
        )
    as_1252.refuse(name)
    return FileEncoding(WINDOWS_1252, "cp1252")


def _scan_utf16(name: str, file: BinaryIO) -> None:
    decoder = codecs.getincrementaldecoder("utf-16")()
    control, lines = _Control(), 0
    try:
        while block := file.read(1 << 16):
            text = decoder.decode(block)
            control.check_block(lines, text)
            lines += text.count("\n")
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        file.seek(0)
        _decode(name, file.read(), "utf-16", UTF16)  # a file refused: read whole to name the line
        raise
    control.refuse(name)


class _Control:
    """The first control character in the text, by line."""

    def __init__(self) -> None:
        self.found: tuple[int, str] | None = None

    def check(self, number: int, line: str) -> None:
        if self.found is None and (match := _CONTROL.search(line)) is not None:
            self.found = (number, match[0])

    def check_block(self, lines_before: int, text: str) -> None:
        if self.found is None and (match := _CONTROL.search(text)) is not None:
            self.found = (lines_before + text.count("\n", 0, match.start()) + 1, match[0])

    def refuse(self, name: str) -> None:
        if self.found is not None:
            line, character = self.found
            raise ValidationError(
                f"{name} line {line}: contains a control character (U+{ord(character):04X}), which no text "
                f"file holds; {SAVE_AS_CSV}"
            )


def _decode(name: str, data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        where = data[: exc.start].decode(codec, errors="replace").count("\n") + 1
        raise ValidationError(
            f"{name} line {where}: byte 0x{data[exc.start]:02X} is not {label} text; {SAVE_AS_CSV}"
        ) from None
