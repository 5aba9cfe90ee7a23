"""The deliveries' HTTP/1.1 client against scripted receivers on loopback: the bytes it sends,
keep-alive, the ways an answer's body is framed, receivers that close, cut off or break HTTP."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from emulator.delivery import client
from emulator.delivery.client import Client, simple

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
Answer = Callable[[int], bytes | None]  # the nth request on a connection -> the bytes to answer


class Scripted:
    """A loopback server: reads each request whole (head and Content-Length body) and answers
    what ``answer(n)`` gives for the nth request of the connection (None: close instead)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.requests: list[bytes] = []
        self.port = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        n = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                reply = self.answer(n)
                n += 1
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def scripted(answer: Answer) -> AsyncIterator[Scripted]:
    server = Scripted(answer)
    listening = await asyncio.start_server(server._serve, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()


async def post(c: Client, port: int, body: bytes = b"{}", path: str = "/hook") -> int:
    target = simple(f"http://127.0.0.1:{port}{path}")
    assert target is not None
    return await c.post(target, {"Content-Type": "application/json", "X-Signature": "s"}, body)


def new_client() -> Client:
    return Client(ssl.create_default_context())


async def test_the_request_is_the_bytes_httpx_sent():
    """Same request line, headers in the same order with the same values, same body."""
    async with scripted(lambda n: OK) as server:
        c = new_client()
        assert await post(c, server.port, b'{"a": 1}', "/hook?x=1") == 200
        async with httpx.AsyncClient() as http:
            await http.post(
                f"http://127.0.0.1:{server.port}/hook?x=1",
                content=b'{"a": 1}',
                headers={"Content-Type": "application/json", "X-Signature": "s"},
            )
        c.close()
    ours, theirs = server.requests
    assert ours == theirs


async def test_one_connection_carries_request_after_request():
    async with scripted(lambda n: OK) as server:
        c = new_client()
        assert [await post(c, server.port) for _ in range(5)] == [200] * 5
        c.close()
    assert (server.connections, len(server.requests)) == (1, 5)


async def test_concurrent_requests_use_a_connection_each_then_share_them():
    async with scripted(lambda n: OK) as server:
        c = new_client()
        for _ in range(3):
            assert await asyncio.gather(*(post(c, server.port) for _ in range(4))) == [200] * 4
        c.close()
    assert (server.connections, len(server.requests)) == (4, 12)


@pytest.mark.parametrize(
    ("answer", "status", "connections"),
    [
        (
            b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            202,
            1,
        ),
        (b"HTTP/1.1 204 No Content\r\n\r\n", 204, 1),
        (b"HTTP/1.1 100 Continue\r\n\r\n" + OK, 200, 1),
        (b"HTTP/1.1 500 Oops\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n", 500, 2),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", 200, 2),
        (b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n", 302, 1),
    ],
    ids=["chunked", "no-body", "interim", "close", "http10", "redirect-not-followed"],
)
async def test_answers_framed_every_way(answer: bytes, status: int, connections: int):
    """Each answer's status counts; the connection is kept unless the answer says otherwise
    (two requests: one connection when kept, two when not). A redirect is not followed."""
    async with scripted(lambda n: answer) as server:
        c = new_client()
        assert [await post(c, server.port) for _ in range(2)] == [status, status]
        c.close()
    assert (server.connections, len(server.requests)) == (connections, 2)


async def test_an_answer_that_runs_to_the_end_of_the_connection():
    """No length and no chunks: the body is what comes until the receiver closes."""
    async with answering_then_closing(b"HTTP/1.1 201 Created\r\n\r\nall of it") as port:
        c = new_client()
        assert await asyncio.wait_for(post(c, port), 5) == 201
        c.close()


@asynccontextmanager
async def answering_then_closing(reply: bytes) -> AsyncIterator[int]:
    """A receiver that answers one request per connection, then closes it."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        writer.write(reply)
        await writer.drain()
        writer.close()

    listening = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield listening.sockets[0].getsockname()[1]
    finally:
        listening.close()


async def test_a_connection_the_receiver_closed_while_idle_is_replaced():
    """The receiver closes each connection after one answer (without saying so): each next
    request goes out once more on a new connection, and every one is answered."""
    async with answering_then_closing(OK) as port:
        c = new_client()
        for _ in range(3):
            assert await post(c, port) == 200
            await asyncio.sleep(0.01)  # the close arrives while the connection is idle
        c.close()


async def test_a_request_on_a_connection_closed_unnoticed_goes_out_again():
    """The close has not been seen yet when the next request takes the connection: that
    request fails before any answer and is sent once more on a new connection."""
    async with answering_then_closing(OK) as port:
        c = new_client()
        assert await post(c, port) == 200
        assert await post(c, port) == 200  # at once: the connection still looks open
        c.close()


async def test_a_long_answer_is_not_read_past_the_cap():
    """A receiver that announces more than BODY_CAP: the status counts, the body is not read,
    the connection is not reused."""
    huge = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (client.BODY_CAP + 1)
    async with scripted(lambda n: huge) as server:
        c = new_client()
        assert [await post(c, server.port) for _ in range(2)] == [200, 200]
        c.close()
    assert server.connections == 2


@pytest.mark.parametrize(
    "answer",
    [
        b"hello\r\n\r\n",
        b"HTTP/1.1 2x0 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
)
async def test_an_answer_that_is_not_http_is_a_protocol_error(answer: bytes):
    async with scripted(lambda n: answer) as server:
        c = new_client()
        with pytest.raises(client.RemoteProtocolError):
            await post(c, server.port)
        c.close()


async def test_no_answer_at_all_is_a_protocol_error():
    async with scripted(lambda n: None) as server:
        c = new_client()
        with pytest.raises(client.RemoteProtocolError, match="without sending a response"):
            await post(c, server.port)
        c.close()


async def test_nobody_listening_is_a_connect_error():
    async with scripted(lambda n: OK) as server:
        port = server.port
    await asyncio.sleep(0.01)
    with pytest.raises(client.ConnectError):
        await post(new_client(), port)


@pytest.mark.parametrize(
    "url",
    [
        "http://user:secret@127.0.0.1:9/hook",  # httpx sends the user info as Basic auth
        "http://127.0.0.1:9/caf\u00e9",  # to be escaped
        "http://127.0.0.1:9/a b",
        "http://127.0.0.1:9/a%zz",
        "http://b\u00fccher.example/hook",  # an IDNA host
        "http://127.0.0.1:9/_emulator/reset",  # refused, with its message, by the other path
        "ftp://127.0.0.1/hook",
    ],
)
def test_urls_it_leaves_to_httpx(url: str):
    assert simple(url) is None


def test_the_host_header_as_httpx_writes_it():
    def host(url: str) -> bytes:
        target = simple(url)
        assert target is not None
        return target.head.split(b"\r\n")[1]

    assert host("http://127.0.0.1:8400/_emulator/sink/a") == b"Host: 127.0.0.1:8400"
    assert host("https://Example.COM:443/x#frag") == b"Host: example.com"
    assert host("http://[::1]:81/x") == b"Host: [::1]:81"
    target = simple("https://example.com?q=1")
    assert target is not None
    assert (target.port, target.head.split(b"\r\n")[0]) == (443, b"POST /?q=1 HTTP/1.1")
