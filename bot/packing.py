"""The bytes a table is stored as: compact JSON (orjson's) compressed with Zstandard and a
dictionary made for tables, and what earlier versions stored (the same JSON under zlib).

A table's JSON is short (about 1 to 5 KB) and much of it is the same from one table to the next:
field names, phases, card names. A dictionary holds those once, for every table, so a table's
own bytes shrink to about half of what zlib made of them, in a third of the time (docs/service.md,
"Stored form"). The dictionaries are files next to this module (`dictionaries/table-<n>.zdict`),
made once by `benchmarks/stored_form.py --train` and never changed: a stored table names its
dictionary (the frame's dictionary id, `DICTIONARY_BASE + n`), and every table ever stored must
stay readable. A newer dictionary is a new file and a new `n`; `WRITING` says which one is
written. A table compressed with a dictionary this code does not have was written by a newer
version: it is refused with `NewerForm`, and left as it is.
"""

import json
import threading
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import zstandard

from bot.upgrades import NewerForm

DICTIONARIES = Path(__file__).with_name("dictionaries")
DICTIONARY_BASE = 1 << 15
"""A dictionary's id in a frame is this plus its number (ids below 32,768 are reserved by
Zstandard for public dictionaries)."""
WRITING = 1
"""The number of the dictionary tables are written with."""
LEVEL = 1
"""Zstandard's level. Its default, 3, makes tables 7 % smaller, but searches larger tables of
its own: with the CPU's caches cold (a worker serving many chats) a table took 20 µs to write,
against 13."""
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of a Zstandard frame (a zlib stream starts with 0x78)."""
FORM = "stored table's compression"


@cache
def dictionary(number: int) -> zstandard.ZstdCompressionDict | None:
    """Dictionary `number`, or None for a later one than this code has (`WRITING` and every one
    before it ship with the code: one of them missing is a broken install, a RuntimeError)."""
    path = DICTIONARIES / f"table-{number}.zdict"
    if not path.is_file():
        if number <= WRITING:
            raise RuntimeError(f"table dictionary {number} is missing from {DICTIONARIES}")
        return None
    made = zstandard.ZstdCompressionDict(path.read_bytes())
    if made.dict_id() != DICTIONARY_BASE + number:
        raise RuntimeError(f"{path} holds dictionary id {made.dict_id()}, not {number}")
    return made


class _Coders(threading.local):
    """The compressor and decompressors of this thread (Zstandard's contexts are not shared
    between threads), each made when first needed."""

    def __init__(self) -> None:
        self.made: zstandard.ZstdCompressor | None = None
        self.decompressors: dict[int, zstandard.ZstdDecompressor] = {}

    def compressor(self) -> zstandard.ZstdCompressor:
        made = self.made
        if made is None:
            written = dictionary(WRITING)
            assert written is not None  # the one written always ships (or `dictionary` raised)
            made = self.made = zstandard.ZstdCompressor(level=LEVEL, dict_data=written)
        return made

    def decompressor(self, dict_id: int) -> zstandard.ZstdDecompressor:
        found = self.decompressors.get(dict_id)
        if found is None:
            if dict_id == 0:
                found = zstandard.ZstdDecompressor()
            else:
                number = dict_id - DICTIONARY_BASE
                if number <= 0:
                    raise ValueError(f"not a stored table: dictionary id {dict_id}")
                made = dictionary(number)
                if made is None:
                    raise NewerForm(FORM, number, WRITING)
                found = zstandard.ZstdDecompressor(dict_data=made)
            self.decompressors[dict_id] = found
        return found


_coders = _Coders()


def pack(data: Any) -> bytes:
    """Plain data as stored: orjson's compact JSON (UTF-8, no spaces: the same text as the
    standard json's with `separators=(",", ":")` and `ensure_ascii=False`), compressed with the
    table dictionary `WRITING`."""
    return _coders.compressor().compress(orjson.dumps(data))


def unpack(blob: bytes) -> Any:
    """The data `pack` stored, or an earlier version did (zlib; the standard json before
    orjson). Raises `NewerForm` for a dictionary this code does not have, ValueError (or
    zlib.error) for bytes that are not such data."""
    if blob[:4] == ZSTD_MAGIC:
        try:
            frame = zstandard.get_frame_parameters(blob)
            text = _coders.decompressor(frame.dict_id).decompress(blob)
        except zstandard.ZstdError as error:
            raise ValueError(f"not a stored table: {error}") from None
    else:
        text = zlib.decompress(blob)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN or Infinity: the standard json writes them
        return json.loads(text)
