"""Every header of an attempt, as the control plane answers it, is every header a real
receiver got on the wire: same names, same values, same order (issue 31: the delivery view
showed 3 of the headers that were sent)."""

from __future__ import annotations

import asyncio

from tests.delivery.test_deliveries import attempts, paid_out, webhook


class RawReceiver:
    """Keeps each request's header lines exactly as they came, and answers 200."""

    def __init__(self) -> None:
        self.heads: list[list[tuple[str, str]]] = []
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")[1:-2]
                fields = [(n, v.strip()) for n, _, v in (line.partition(":") for line in lines)]
                length = next(int(v) for n, v in fields if n.lower() == "content-length")
                await reader.readexactly(length)
                self.heads.append(fields)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def test_an_attempts_headers_are_every_header_the_receiver_got(http, gw, merchant):
    receiver = RawReceiver()
    server = await asyncio.start_server(receiver.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await webhook(http, gw, f"http://127.0.0.1:{port}/hook?x=1")
        payout = await paid_out(http, gw, merchant, "4444333322221111")
        [attempt] = await attempts(http, object_id=payout["id"])
    finally:
        server.close()
    [got] = receiver.heads
    assert attempt["success"] is True
    assert list(attempt["headers"].items()) == got
    names = [name for name, _ in got]
    assert names[:5] == ["Host", "Accept", "Accept-Encoding", "Connection", "User-Agent"]
    assert names[-2:] == ["X-Emulator-Time", "Content-Length"]
    assert attempt["headers"]["Host"] == f"127.0.0.1:{port}"
