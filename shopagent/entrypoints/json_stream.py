"""The elements of a JSON array, read from a file block by block, each as its own bytes.

A catalog of 200,000 products is a 200 MB array: decoded whole it held 1 GiB of memory for
the whole import. This reads the array a block at a time and cuts out each top-level element
(its bytes: the caller decodes them with msgspec, so each product is read exactly as before),
holding one block and one element at a time. Only the array's own structure is followed here
(strings, escapes, nesting); whether an element is valid JSON is msgspec's to say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from shopagent.domain.errors import ValidationError

NOT_AN_ARRAY = "a .json catalog must be an array of products (use .jsonl for one per line)"
_BLOCK = 1 << 20
_OUTSIDE = re.compile(rb'[\\"\[\]{},]')  # what changes the structure outside a string
_INSIDE = re.compile(rb'[\\"]')  # what ends a string or escapes its next byte
_SPACE = b" \t\r\n"


class _Scan:
    """Where the scan is: nesting depth (the array itself is 1), inside a string, after a backslash."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.escaped = False


def array_elements(stream: BinaryIO, block_size: int = _BLOCK) -> Iterator[bytes]:
    """Each element of the JSON array `stream` holds, as bytes (surrounding blanks removed).

    Raises ValidationError when the text is not an array, is cut off before the array ends, or
    goes on after it (the elements before are given first)."""
    scan = _Scan()
    pending = bytearray()  # the current element's bytes from earlier blocks
    started = ended = False
    given = 0
    head = stream.read(max(block_size, 3)).removeprefix(b"\xef\xbb\xbf")  # a byte order mark, as some editors save
    while block := head or stream.read(block_size):
        start, head = 0, b""
        if not started:
            block = block.lstrip(_SPACE)
            if not block:
                continue
            if block[:1] != b"[":
                raise ValidationError(NOT_AN_ARRAY)
            started, scan.depth, start = True, 1, 1
        if ended:
            if block.strip(_SPACE):
                raise ValidationError("not valid JSON: text after the end of the array")
            continue
        for end, last in _boundaries(block, start, scan):
            element = bytes(pending + block[start:end]).strip(_SPACE) if pending else block[start:end].strip(_SPACE)
            pending.clear()
            start = end + 1
            if element or not last or given:
                given += 1
                yield element  # empty between commas or after the last: msgspec says what is wrong
            if last:
                ended = True
                if block[start:].strip(_SPACE):
                    raise ValidationError("not valid JSON: text after the end of the array")
                break
        else:
            pending += block[start:]
    if not started:
        raise ValidationError("not valid JSON: the file is empty")
    if not ended:
        raise ValidationError("not valid JSON: the array is not closed (is the file cut off?)")


def _boundaries(block: bytes, position: int, scan: _Scan) -> Iterator[tuple[int, bool]]:
    """The offsets in `block` where a top-level element ends (a comma, or the array's closing
    bracket: then `True`), carrying the scan's state over to the next block."""
    if scan.escaped:
        position, scan.escaped = position + 1, False
    size = len(block)
    while position < size:
        found = (_INSIDE if scan.in_string else _OUTSIDE).search(block, position)
        if found is None:
            return
        char, position = block[found.start()], found.start() + 1
        if char == 0x5C:  # backslash: the next byte is escaped (maybe in the next block)
            if position >= size:
                scan.escaped = True
            position += 1
        elif char == 0x22:  # quote
            scan.in_string = not scan.in_string
        elif char in b"[{":
            scan.depth += 1
        elif char in b"]}":
            scan.depth -= 1
            if scan.depth == 0:
                yield found.start(), True
                return
        elif scan.depth == 1:  # a comma between the array's elements
            yield found.start(), False
