"""Hostile requests to the web table, against a real redis-server and a real aiohttp server:
bodies of every wrong shape and size, wrong methods, paths out of the static folder, a move of
another seat, the same move twice at once, and more event streams than a person needs. Each is
refused with its status and a short answer, changes nothing in the store, and logs no error."""

import asyncio
import io
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from aiohttp import web
from aiohttp.test_utils import TestClient
from service_helpers import ANN, BOB, CID, Clock, Driver, raw, service
from test_web import CHAT, CONFIG, NOW, bearer, game_id, next_event, page_view, table, web_client

from adapters.web import server
from adapters.web.auth import RateLimit
from adapters.web.server import WebTable

__all__ = ["table"]  # the fixture

Client = TestClient[web.Request, web.Application]


@pytest.fixture(autouse=True)
def no_error_logged(caplog: pytest.LogCaptureFixture) -> Any:
    """Every test here logs nothing at ERROR or above (aiohttp logs an unhandled error so)."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors


@pytest.fixture
async def three(redis_client: aioredis.Redis) -> AsyncIterator[tuple[Driver, WebTable, Client]]:
    """Ann, Bob and Cid at CHAT (no AI seat: a move is one write), and the web table."""
    people = [ANN, BOB, CID]
    driver = Driver(service(redis_client, seed=3, config=CONFIG), people, chat=CHAT, seed=1)
    await driver.lobby(["rounds=short"])
    async with web_client(driver, Clock(NOW), RateLimit(rate=1e6, burst=1e6)) as (web, client):
        yield driver, web, client


def moves(view: dict[str, Any]) -> list[str]:
    """The payloads of every move `view` offers its player now."""
    return [m["payload"] for m in view["bids"] + view["trump_choice"]] + [
        c["payload"] for c in view["hand"] if c["legal"]
    ]


async def ann_to_move(
    driver: Driver, web: WebTable, client: Client
) -> tuple[dict[str, str], str, Any]:
    """A game of Ann and two AI seats waiting on Ann: her credential's header, a move she may
    make, and the chat as stored before anything is asked."""
    await driver.lobby(["rounds=short"], ai=2)
    link = bearer(web.link(CHAT, ANN.id, await game_id(driver)))
    good = moves(await page_view(client, link))[0]
    return link, good, await raw(driver.redis, CHAT)


async def test_a_body_of_any_wrong_shape_or_size_is_refused_and_changes_nothing(
    table: tuple[Driver, WebTable, Client],
) -> None:
    driver, web, client = table
    link, good, before = await ann_to_move(driver, web, client)
    not_moves: dict[str, bytes] = {
        "not JSON": b"payload=" + good.encode(),
        "not UTF-8": b'{"payload": "\xff\xfe"}',
        "empty": b"",
        "a list": json.dumps([{"payload": good}]).encode(),
        "a string": json.dumps(good).encode(),
        "null": b"null",
        "a number": b"5",
        "the payload a number": b'{"payload": 5}',
        "the payload null": b'{"payload": null}',
        "the payload a list": json.dumps({"payload": [good]}).encode(),
        "the payload an object": json.dumps({"payload": {"payload": good}}).encode(),
        "the payload a number as a string": b'{"payload": "5"}',
        "the payload with a NUL": json.dumps({"payload": good + "\x00"}).encode(),
        "nested 2,000 deep": b"[" * 2000 + b"]" * 2000,
        "a payload nested 2,000 deep": b'{"payload": ' + b"[" * 2000 + b"]" * 2000 + b"}",
        "a long string": json.dumps({"payload": "a" * 3000}).encode(),
    }
    for case, body in not_moves.items():
        answer = await client.post("/api/move", headers=link, data=body)
        assert answer.status == 400, (case, await answer.text())
        assert (await answer.json())["error"] == "not a move", case
    too_large = {  # over 4 KB: refused unread
        "nested 10,000 deep": b"[" * 10_000 + b"]" * 10_000,
        "a huge string": json.dumps({"payload": "a" * 5_000_000}).encode(),
        "several megabytes of nothing": b" " * 4_000_000 + json.dumps({"payload": good}).encode(),
    }
    for case, body in too_large.items():
        answer = await client.post("/api/move", headers=link, data=io.BytesIO(body))
        assert answer.status == 413, (case, await answer.text())
        assert (await answer.json())["error"] == "not a move", case
    assert await raw(driver.redis, CHAT) == before


async def test_a_wrong_method_or_an_unknown_api_path_is_refused_and_changes_nothing(
    table: tuple[Driver, WebTable, Client],
) -> None:
    driver, web, client = table
    link, good, before = await ann_to_move(driver, web, client)
    for method, path, status in (
        ("GET", "/api/move", 405),
        ("PUT", "/api/move", 405),
        ("DELETE", "/api/move", 405),
        ("POST", "/api/view", 405),
        ("POST", "/api/events", 405),
        ("POST", "/", 405),
        ("GET", "/api/moves", 404),
    ):
        answer = await client.request(
            method, path, headers=link, params={"payload": good}, json={"payload": good}
        )
        assert answer.status == status, (method, path, await answer.text())
        assert len(await answer.read()) < 200, (method, path)
    assert await raw(driver.redis, CHAT) == before


async def raw_get(port: int, target: str) -> tuple[int, bytes]:
    """A GET of `target` exactly as written (no client tidies its dots or escapes away)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    answer = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_no_path_leads_out_of_the_static_folder(
    table: tuple[Driver, WebTable, Client],
) -> None:
    _, _, client = table
    port = client.port
    assert port is not None
    assert (await raw_get(port, "/static/table.js"))[0] == 200
    for target in (
        "/static/../server.py",
        "/static/../../../../etc/passwd",
        "/static/..%2fserver.py",
        "/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/static/%2e%2e/server.py",
        "/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/%252e%252e/server.py",
        "/static/..%5cserver.py",
        "/static/....//server.py",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/table.js%00.png",
        "/static/",
        "/static",
        "/%2e%2e/%2e%2e/etc/passwd",
    ):
        status, body = await raw_get(port, target)
        assert status in (400, 403, 404), (target, status, body[:200])
        assert b"root:" not in body, target
        assert b"import" not in body, target


async def test_a_move_of_another_seat_is_refused_and_changes_nothing(
    three: tuple[Driver, WebTable, Client],
) -> None:
    driver, web, client = three
    gid = await game_id(driver)
    links = {p.id: bearer(web.link(CHAT, p.id, gid)) for p in (ANN, BOB, CID)}
    views = {p: await page_view(client, link) for p, link in links.items()}
    actor = next(p for p, view in views.items() if moves(view))
    before = await raw(driver.redis, CHAT)
    for other in links.keys() - {actor}:
        assert not moves(views[other])
        for payload in moves(views[actor]):
            answer = await client.post("/api/move", headers=links[other], json={"payload": payload})
            assert answer.status == 200, await answer.text()  # as a chat button's press is
            made = await answer.json()
            assert not made["ok"], made
            assert made["answer"], made
    assert await raw(driver.redis, CHAT) == before


async def test_the_same_move_sent_twice_at_once_is_applied_once(
    three: tuple[Driver, WebTable, Client],
) -> None:
    driver, web, client = three
    gid = await game_id(driver)
    for _ in range(3):  # a few decisions in a row, each pressed twice at once
        views = {
            p.id: await page_view(client, bearer(web.link(CHAT, p.id, gid)))
            for p in (ANN, BOB, CID)
        }
        actor = next(p for p, view in views.items() if moves(view))
        link = bearer(web.link(CHAT, actor, gid))
        payload = moves(views[actor])[0]
        version, _ = await raw(driver.redis, CHAT)
        answers = await asyncio.gather(
            *(client.post("/api/move", headers=link, json={"payload": payload}) for _ in range(2))
        )
        made = [await answer.json() for answer in answers]
        assert [answer.status for answer in answers] == [200, 200]
        assert sorted(m["ok"] for m in made) == [False, True], made
        assert (await raw(driver.redis, CHAT))[0] == version + 1  # one write


async def test_one_person_opens_only_so_many_event_streams(
    table: tuple[Driver, WebTable, Client],
) -> None:
    """A link opens at most `MAX_STREAMS` event streams of its person at once (each holds a
    connection and a poll of the store); one more is refused (429) until one of them ends."""
    driver, web, client = table
    await driver.lobby(["rounds=short"], ai=2)
    gid = await game_id(driver)
    links = [web.link(CHAT, ANN.id, gid)] + [  # the same person's links, signed at other times
        (web.clock.advance(1), web.link(CHAT, ANN.id, gid))[1]  # type: ignore[attr-defined]
        for _ in range(2)
    ]
    streams = []
    for number in range(server.MAX_STREAMS):
        stream = await client.get("/api/events", params={"link": links[number % len(links)]})
        assert stream.status == 200
        assert (await next_event(stream))[0] == "view"
        streams.append(stream)
    before = await raw(driver.redis, CHAT)
    for link in links:
        refused = await client.get("/api/events", params={"link": link})
        assert refused.status == 429, refused.status  # (a stream's text never ends)
        assert (await refused.json())["error"] == "too many requests"
    assert (await client.get("/api/view", params={"link": links[0]})).status == 200
    assert await raw(driver.redis, CHAT) == before
    streams.pop().close()
    async with asyncio.timeout(10):  # the server sees it gone within a poll
        while (again := await client.get("/api/events", params={"link": links[0]})).status == 429:
            await asyncio.sleep(0.05)
    assert again.status == 200
    again.close()
    for stream in streams:
        stream.close()
