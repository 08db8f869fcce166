"""LSP base-protocol framing for ``sgllint lsp``, robust to a hostile or
broken client: ``Content-Length: N\\r\\n\\r\\n`` then N bytes of JSON.

pygls' own reader trusts the header: a missing, non-numeric or negative
length desynchronises it for good (every later message is lost), and a huge
one is read into memory or waited for forever. Here a bad frame is logged
and skipped, and reading resumes at the next ``Content-Length:`` header.

Resynchronising is safe because the header line cannot occur inside a valid
JSON body: outside a string JSON has no bare words, and inside a string a raw
CR is forbidden. So a body that contains a header line was cut from a wrong
length, and the header inside it starts the next real message.
"""

from __future__ import annotations

import logging
import re
from typing import Callable, Optional

log = logging.getLogger("sgllint.lsp")

#: the largest message body accepted (an opened document travels in one
#: message; sgllint lints files up to 16 MB and JSON escaping can double them)
MAX_BODY_BYTES = 64 * 1024 * 1024
#: a header block longer than this is not a header block
MAX_HEADER_BYTES = 8 * 1024
#: bytes asked of the stream per read
CHUNK_BYTES = 64 * 1024

_HEADER_LINE = re.compile(rb"content-length:[ \t]*(\d{1,20})[ \t]*\r\n", re.I)
_HEADER_END = b"\r\n\r\n"
#: longer than any header line: how far back a search resumes after a read
_KEEP_FOR_RESYNC = 64


class FrameError(Exception):
    """A frame that cannot be read; reading resumes at the next header."""


class FrameReader:
    """Message bodies from a byte stream, one `next_body` call each.

    ``read`` returns at most ``n`` bytes, blocking until at least one is
    available, and ``b""`` at the end of the stream (``BufferedReader.read1``
    or ``os.read``)."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read
        self._buf = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._read(CHUNK_BYTES)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def next_body(self) -> Optional[bytes]:
        """The next well-framed body, or None at the end of the stream. A bad
        frame is logged and skipped."""
        while True:
            try:
                body = self._frame()
            except FrameError as e:
                log.warning("skipping a malformed message: %s", e)
                if not self._resync():
                    return None
                continue
            except EOFError:
                return None
            if body is not None:
                return body

    def _frame(self) -> Optional[bytes]:
        """One body; None when the frame turned out to be cut short by the
        next message (skipped, and the reader stands at that message)."""
        end = self._buf.find(_HEADER_END)
        while end < 0:
            if len(self._buf) > MAX_HEADER_BYTES:
                raise FrameError(f"no end of headers within {MAX_HEADER_BYTES} bytes")
            if not self._fill():
                if self._buf.strip():
                    log.warning("skipping %d bytes at the end of the input: not a message", len(self._buf))
                raise EOFError
            end = self._buf.find(_HEADER_END)
        length = _content_length(bytes(self._buf[: end + 2]))
        del self._buf[: end + len(_HEADER_END)]
        searched = 0
        while True:
            # a header line inside the body: the length was wrong, and the
            # next message starts there (checked as bytes arrive, so a length
            # that overstates never leaves the server waiting)
            cut = _HEADER_LINE.search(self._buf, searched, length + _KEEP_FOR_RESYNC)
            if cut is not None and cut.start() < length:
                del self._buf[: cut.start()]
                log.warning("skipping a malformed message: Content-Length %d runs into the next message", length)
                return None
            if len(self._buf) >= length:
                break
            searched = max(0, len(self._buf) - _KEEP_FOR_RESYNC)
            if not self._fill():
                raise EOFError
        body = bytes(self._buf[:length])
        del self._buf[:length]
        return body

    def _resync(self) -> bool:
        """Drop the bad frame's first byte and everything up to the next
        header line; False at the end of the stream. Memory stays bounded
        whatever the client sends."""
        del self._buf[:1]
        while True:
            found = _HEADER_LINE.search(self._buf)
            if found is not None:
                del self._buf[: found.start()]
                return True
            del self._buf[: max(0, len(self._buf) - _KEEP_FOR_RESYNC)]
            if not self._fill():
                return False


def _content_length(headers: bytes) -> int:
    """The length a header block declares; FrameError when it declares none
    or one this reader does not accept."""
    lines = headers.split(b"\r\n")
    for line in lines:
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit() or len(text) > 20:
                raise FrameError(f"bad Content-Length {_shown(text)}")
            length = int(text)
            if length > MAX_BODY_BYTES:
                raise FrameError(f"Content-Length {length} is over the {MAX_BODY_BYTES}-byte limit")
            if length == 0:
                raise FrameError("empty message")
            return length
    raise FrameError(f"no Content-Length header in {_shown(headers)}")


def _shown(raw: bytes, limit: int = 80) -> str:
    text = raw[:limit].decode("ascii", "backslashreplace")
    return repr(text + ("..." if len(raw) > limit else ""))
