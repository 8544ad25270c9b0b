"""The bytes of an SWF trace (or of a failure or availability log read the same way): the
file read whole, gzip recognised by its magic bytes and decompressed, a UTF-8 byte-order mark
dropped, and a file that is not text (an image, an archive, a web page, binary data), or whose
lines end in CR only, refused as such.  Used by `ckptsim.workload.swf.read_swf`."""

from __future__ import annotations

import zlib
from os import PathLike
from pathlib import Path

from ckptsim.errors import WorkloadError

_GZIP_MAGIC = b"\x1f\x8b"

_UTF8_BOM = b"\xef\xbb\xbf"

#: What a file that is not SWF text is, by its first bytes (SWF text starts with ';', a digit,
#: a sign, a point or whitespace, so none of these prefixes can start a valid trace).
_NOT_TEXT = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (or an office document): unpack it first"),
    (b"BZh", "bzip2-compressed data: decompress it (or recompress it with gzip)"),
    (b"\xfd7zXZ", "xz-compressed data: decompress it (or recompress it with gzip)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data: decompress it (or recompress it with gzip)"),
    (b"7z\xbc\xaf", "a 7-zip archive: unpack it first"),
    (b"PAR1", "a Parquet file"),
    (b"SQLite format 3", "an SQLite database"),
    (b"\x7fELF", "an executable program"),
    (b"\xff\xfe", "UTF-16 text: save it as ASCII or UTF-8"),
    (b"\xfe\xff", "UTF-16 text: save it as ASCII or UTF-8"),
    (b"<", "HTML or XML (a web page saved instead of the trace?)"),
)


def _read_text(path: str | PathLike[str], where: str) -> bytes:
    """The file's bytes, decompressed when they start with the gzip magic number."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadError("file not found", path=where) from None
    except OSError as exc:
        raise WorkloadError(f"cannot read the file: {exc.strerror or exc}", path=where) from None
    if raw.startswith(_GZIP_MAGIC):
        raw = _gunzip(raw, where)
    if raw.startswith(_UTF8_BOM):  # a byte-order mark some editors write: not part of the text
        raw = raw[len(_UTF8_BOM):]
    what = not_text(raw)
    if what is not None:
        raise WorkloadError(f"not an SWF trace: the file is {what}", path=where)
    if b"\n" not in raw and b"\r" in raw.rstrip():  # lines, but none ends in LF
        raise WorkloadError("the lines end in CR only (classic Mac OS line endings), which "
                            "are not read as line breaks: convert them to LF first (e.g. "
                            "tr '\\r' '\\n' < IN > OUT)", path=where)
    return raw


def not_text(raw: bytes) -> str | None:
    """What a file is when its first bytes show it is not text (`"a PNG image"`), else None.

    Only formats whose signature cannot start a text trace or log are recognised (see
    `_NOT_TEXT`); a file with NUL bytes further on is caught by the callers' parsers."""
    head = raw[:64].lstrip()
    for magic, what in _NOT_TEXT:
        if head.startswith(magic):
            return what
    return None


def _refuse_binary(text: bytes, where: str) -> None:
    """A WorkloadError if the text holds NUL bytes, which no text file has."""
    at = text.find(b"\0")
    if at >= 0:
        line = text.count(b"\n", 0, at) + 1
        raise WorkloadError("not an SWF trace: binary data (NUL bytes) where text is expected",
                            path=where, line=line)


def _gunzip(raw: bytes, where: str) -> bytes:
    """Decompress a (possibly multi-member) gzip file in one go.

    zlib checks each member's CRC and length.  A stream that ends early is reported as a
    truncated file instead of surfacing as EOFError.  One call per member, because
    decompressing in small pieces (even overlapped with parsing on another thread) makes many
    short-lived buffers whose page faults cost more than the overlap saves.
    """
    parts = []
    data = raw
    while True:  # one gzip member per turn
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            parts.append(inflater.decompress(data))
        except zlib.error as exc:
            raise WorkloadError(f"gzip data is corrupt: {exc}", path=where) from None
        if not inflater.eof:
            raise WorkloadError("gzip data is truncated (the file was cut short)", path=where)
        data = inflater.unused_data
        if not data.strip(b"\0"):
            break
        if not data.startswith(_GZIP_MAGIC):
            raise WorkloadError("gzip data is corrupt: unexpected bytes after the compressed "
                                "data", path=where)
    return parts[0] if len(parts) == 1 else b"".join(parts)
