"""serve's HTTP protocol: httptools' with an answer's writes of one event-loop turn joined."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

from emulator.http.protocol import JOIN_BELOW, _JoinedWrites


class Recording:
    """A transport that records what reaches it."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.extra = {"peername": ("127.0.0.1", 1)}

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(data)

    def writelines(self, data: list[bytes]) -> None:
        assert not self.closed, "written after close"
        self.writes.append(list(data))  # type: ignore[arg-type]

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.extra.get(name, default)


async def test_the_writes_of_one_turn_reach_the_transport_as_one():
    recording = Recording()
    joined = _JoinedWrites(recording, asyncio.get_running_loop())  # type: ignore[arg-type]
    joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    joined.write(b"{}")
    assert recording.writes == []  # not before the turn ends
    await asyncio.sleep(0)
    assert recording.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    joined.write(b"next")  # a later turn: a write of its own
    await asyncio.sleep(0)
    assert recording.writes[1:] == [b"next"]


async def test_a_large_answer_is_handed_over_as_a_list_not_joined():
    recording = Recording()
    joined = _JoinedWrites(recording, asyncio.get_running_loop())  # type: ignore[arg-type]
    head, body = b"HTTP/1.1 200 OK\r\ncontent-length: 65536\r\n\r\n", bytes(JOIN_BELOW)
    joined.write(head)
    joined.write(body)
    await asyncio.sleep(0)
    assert recording.writes == [[head, body]]  # type: ignore[comparison-overlap]
    assert recording.writes[0][1] is body  # not copied


async def test_closing_sends_what_waits_first_and_nothing_after():
    recording = Recording()
    joined = _JoinedWrites(recording, asyncio.get_running_loop())  # type: ignore[arg-type]
    joined.write(b"head")
    joined.write(b"body")
    joined.close()
    assert recording.writes == [b"headbody"] and recording.closed
    await asyncio.sleep(0)  # the turn's own send finds nothing waiting
    assert recording.writes == [b"headbody"]


async def test_writes_to_a_transport_closed_meanwhile_are_dropped():
    recording = Recording()
    joined = _JoinedWrites(recording, asyncio.get_running_loop())  # type: ignore[arg-type]
    joined.write(b"late")
    recording.close()  # e.g. aborted by a drop fault, or the client went away
    await asyncio.sleep(0)
    assert recording.writes == []


async def test_other_calls_reach_the_transport():
    recording = Recording()
    joined = _JoinedWrites(recording, asyncio.get_running_loop())  # type: ignore[arg-type]
    assert joined.get_extra_info("peername") == ("127.0.0.1", 1)
    assert not joined.is_closing()


def _read_answers(sock: socket.socket, count: int) -> list[bytes]:
    """``count`` whole answers (content-length bodies) read from ``sock``."""
    data, answers = b"", []
    while len(answers) < count:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")[1:]
                if line.lower().startswith(b"content-length:")
            )
            if len(rest) >= length:
                answers.append(head + sep + rest[:length])
                data = rest[length:]
                continue
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {len(answers)} answers"
        data += chunk
    return answers


def test_served_answers_are_whole_pipelined_and_before_a_close():
    """Under uvicorn with serve's protocol: keep-alive answers come whole and in order, two
    pipelined requests get two answers, and ``Connection: close`` gets its answer first."""
    from emulator.testing import EmulatorServer

    with EmulatorServer() as server:
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            get = b"GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n"
            sock.sendall(get)
            (first,) = _read_answers(sock, 1)
            sock.sendall(get + b"GET /_emulator/nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
            second, third = _read_answers(sock, 2)
            big = b'{"text": "%s"}' % (b"x" * 4000)
            for _ in range(40):  # a sink's answer of 320 KB: handed over unjoined
                post = b"POST /_emulator/sink/big HTTP/1.1\r\nHost: x\r\n"
                sock.sendall(post + b"Content-Length: %d\r\n\r\n%s" % (len(big), big))
                assert _read_answers(sock, 1)[0].startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /_emulator/sink/big HTTP/1.1\r\nHost: x\r\n\r\n" + get)
            large, after = _read_answers(sock, 2)
            body = json.loads(large.partition(b"\r\n\r\n")[2])
            assert [m["json"] for m in body["messages"]] == [json.loads(big)] * 40
            assert after.startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /_emulator/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            (last,) = _read_answers(sock, 1)
            assert sock.recv(1) == b""  # then the server closes
        assert first.startswith(b"HTTP/1.1 200") and second.startswith(b"HTTP/1.1 200")
        assert third.startswith(b"HTTP/1.1 404")
        assert last.startswith(b"HTTP/1.1 200") and b"connection: close" in last.lower()


def test_served_requests_leave_no_reference_cycles():
    """Each request's objects go when it ends, not at the next garbage collection: cycles of a
    thousand requests had made young collections take 5-20 ms (the tail of every figure)."""
    import gc
    import http.client

    from emulator.testing import EmulatorServer

    with EmulatorServer() as server:
        host, port = server.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)

        def requests(count: int) -> None:
            for _ in range(count):
                for path in ("/api/v1/clients/", "/_emulator/health"):
                    conn.request("GET", path, headers={"Authorization": "Bearer unknown"})
                    conn.getresponse().read()

        def cycles() -> int:
            gc.collect()
            gc.disable()
            try:
                requests(100)
                return gc.collect()
            finally:
                gc.enable()

        try:
            requests(20)  # whatever is made once (caches, the first connection's objects)
            # the fewest of up to three rounds: the collection counts the whole process's
            # garbage, and other threads (a busy worker's leftovers) can add some to a round;
            # a leak of the requests' own is in every round
            unreachable = cycles()
            for _ in range(2):
                if unreachable < 50:
                    break
                unreachable = min(unreachable, cycles())
        finally:
            conn.close()
    assert unreachable < 50  # was about 11 per request (2,200 for these 200)
