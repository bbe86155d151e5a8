"""uvicorn's httptools protocol with a request-head size limit.

uvicorn bounds the request head only in its h11 implementation
(--h11-max-incomplete-event-size); with httptools the URL and headers are buffered without
limit. This subclass answers 431 and closes the connection when a request head (request
line + headers) exceeds MAX_HEAD bytes: checked exactly when the head is complete, and
while it is still arriving (bytes received since it began), so it is never buffered
without bound. Selected with `uvicorn --http h1limit:HttpToolsProtocolWithHeadLimit`.
"""
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD = 64 * 1024

_REPLY_431 = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 31\r\n"
    b"connection: close\r\n\r\n"
    b"request header fields too large"
)


class HttpToolsProtocolWithHeadLimit(HttpToolsProtocol):
    _in_head = True  # a request head is being received
    _head_bytes = 0  # bytes received since it began (an upper bound of its size)
    _rejected = False

    def _reject(self) -> None:
        self._rejected = True
        self.transport.write(_REPLY_431)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._rejected or self.transport.is_closing():
            return
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._in_head and self._head_bytes > MAX_HEAD and not self.transport.is_closing():
            self._reject()

    def on_message_begin(self) -> None:
        if not self._rejected:
            super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        if not self._rejected:
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._rejected:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._rejected:
            return
        self._in_head = False
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
        if size > MAX_HEAD:
            self._reject()
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._rejected:
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_head = True
        self._head_bytes = 0
        if not self._rejected:
            super().on_message_complete()
