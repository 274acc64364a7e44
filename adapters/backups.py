"""`wizard-bot backup FILE` and `wizard-bot restore FILE`: the bot's keys in the configured Redis
(`redis_url`, a Cluster with `redis_cluster`) or the embedded one in `data_dir`, to or from a
backup file (`-`: standard output or input). The file and its guarantees are
`bot.store.backup`'s.

The embedded server is used where the bot runs it (its socket in `data_dir` answers), else it is
started for the command and stopped after it, as `wizard-bot run` does.
"""

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit, urlunsplit

import redis

from bot import Config, RedisClient, StoreErrors
from bot.store import reached, redis_client
from bot.store.backup import Backup, BackupError, Restore, Summary
from bot.store.redis_server import RedisServerError, embedded_redis, socket_path

EXIT_OK = 0
EXIT_FAILED = 1
TIMEOUT = 5.0
"""The least time a Redis call may take before the command gives up (seconds)."""

Job = Callable[[RedisClient], Awaitable[Summary]]

_CLOSED = "standard {} is closed: name a file instead of -"
"""`-` as the file when the process was started with that stream closed (`>&-`, `<&-`)."""


def fail(command: str, message: str) -> int:
    print(f"wizard-bot {command}: {message}", file=sys.stderr)
    return EXIT_FAILED


def shown_url(url: str) -> str:
    """A Redis URL without its password, for the backup's header and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + host))


def _answers(path: Path) -> bool:
    """Whether a Redis answers on the unix socket `path` (the running bot's embedded one)."""
    if not path.exists():
        return False
    try:
        with redis.Redis(unix_socket_path=str(path), socket_timeout=1.0) as client:
            return bool(client.ping())
    except (redis.RedisError, OSError):
        return False


@contextlib.contextmanager
def _redis(config: Config) -> Iterator[tuple[str, str]]:
    """The URL of the Redis to use and how to name it: the configured one, the running bot's
    embedded server, or the embedded server started now (and stopped on the way out)."""
    if config.redis_url is not None:
        yield config.redis_url, shown_url(config.redis_url)
        return
    where = f"the embedded Redis in {config.data_dir}"
    running = socket_path(config.data_dir)
    if _answers(running):
        yield f"unix://{running}?db=0", where
        return
    server = embedded_redis(config.data_dir, config.redis_fsync)
    try:
        yield server.url, where
    finally:
        server.stop()


def backup(config: Config, target: str) -> int:
    """`wizard-bot backup FILE`: write every key of the bot to FILE (`-`: standard output)."""
    if target == "-" and sys.stdout is None:
        return fail("backup", _CLOSED.format("output"))
    if target != "-" and Path(target).is_dir():
        return fail("backup", f"{target} is a directory: name the backup's file in it")
    if target != "-" and not Path(target).absolute().parent.is_dir():
        folder = Path(target).parent
        return fail("backup", f"{target}: there is no folder {folder}: make it, or name another")
    try:
        with _redis(config) as (url, where):
            if target == "-":
                summary = _run("backup", config, url, where, _backing_up(sys.stdout.buffer, where))
                sys.stdout.buffer.flush()  # all of it out before it is said to be
            else:
                summary = _whole(
                    Path(target),
                    lambda out: _run("backup", config, url, where, _backing_up(out, where)),
                )
    except (RedisServerError, OSError) as error:
        if target == "-" and isinstance(error, OSError) and not error.filename:
            raise  # the output's (a full disk): the command line says so, once (`adapters.cli`)
        return fail("backup", _why(error))
    if summary is None:
        return EXIT_FAILED
    said = sys.stderr if target == "-" else sys.stdout
    print(f"wizard-bot backup: {where} to {target}: {summary.line()}", file=said)
    return EXIT_OK


def _whole(path: Path, write: Callable[[IO[bytes]], Summary | None]) -> Summary | None:
    """What `write` wrote to `path`, under `path.partial` until it is whole and on disk, then
    renamed: a backup file is whole or not there. The partial file is removed whatever stops it
    (`write` failing, the rename, an interrupt)."""
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("wb") as out:
            summary = write(out)
            out.flush()
            os.fsync(out.fileno())
        if summary is not None:
            partial.replace(path)
        return summary
    finally:
        partial.unlink(missing_ok=True)


def _backing_up(out: IO[bytes], where: str) -> Job:
    return lambda client: Backup(client).write(out, where)


def restore(config: Config, source: str, replace: bool) -> int | str:
    """`wizard-bot restore FILE`: restore the backup in FILE (`-`: standard input). The line
    that says what it restored, for the command line to say (`adapters.cli.run_restore`); or
    the exit status of a restore that did not happen (said on stderr)."""
    if source == "-" and sys.stdin is None:
        return fail("restore", _CLOSED.format("input"))
    try:
        with _opened(source) as src, _redis(config) as (url, where):

            def job(client: RedisClient) -> Awaitable[Summary]:
                return Restore(client).write(src, replace)

            summary = _run("restore", config, url, where, job)
    except (RedisServerError, OSError) as error:
        return fail("restore", _why(error))
    if summary is None:
        return EXIT_FAILED
    return f"the backup of {summary.created} from {summary.source} into {where}: {summary.line()}"


@contextlib.contextmanager
def _opened(source: str) -> Iterator[IO[bytes]]:
    """The backup to read, seekable: the file, or standard input kept in a temporary file."""
    if source != "-":
        with Path(source).open("rb") as src:
            yield src
        return
    with tempfile.TemporaryFile() as spool:
        shutil.copyfileobj(sys.stdin.buffer, spool)
        yield spool


def _run(command: str, config: Config, url: str, where: str, job: Job) -> Summary | None:
    """Run `job` with a client of the Redis at `url`: its summary, or None (said on stderr)."""

    async def run() -> Summary | None:
        client = redis_client(url, max(config.redis_timeout, TIMEOUT), config.redis_cluster)
        try:
            await reached(client)
            return await job(client)
        except BackupError as error:
            fail(command, str(error))
        except StoreErrors as error:
            fail(command, f"Redis ({where}): {error}")
        finally:
            await client.aclose()
        return None

    return asyncio.run(run())


def _why(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        name = f"{error.filename}: " if error.filename else ""
        return f"{name}{error.strerror}"
    return str(error)
