"""The health server seen from outside, as `wizard-bot health` asks it: one GET of /healthz (or
/readyz) at `metrics.listen`, with the standard library only so that a container's health check
starts fast, and a one-line verdict."""

import http.client
from dataclasses import dataclass

HEALTH_PATH = "/healthz"
"""Answers 200 while the process runs its loop."""
READY_PATH = "/readyz"
"""Answers 200 while the process can serve: its store reached, its front ends started."""
TIMEOUT = 3.0
"""Seconds the check waits for the connection and the answer."""
MAX_REASON = 120
"""Characters of the server's answer repeated in a failure's line."""

TEXT = ("text/plain", "application/json")
"""The answers whose body a failure's line repeats (not a page of HTML)."""

_ANY = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1", "[::]": "::1"}
"""Listening on every address: the check asks the loopback one of the same family."""


@dataclass(frozen=True)
class Verdict:
    """What the check found: healthy or not, and one line saying so."""

    healthy: bool
    line: str


def probe_url(listen: str, path: str) -> tuple[str, int, str]:
    """The host, port and URL the check asks for a server listening at `listen` (host:port)."""
    host, _, port = listen.rpartition(":")
    host = _ANY.get(host, host)
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    shown = f"[{host}]" if ":" in host else host
    return host, int(port), f"http://{shown}:{port}{path}"


def check(listen: str, path: str = HEALTH_PATH, timeout: float = TIMEOUT) -> Verdict:
    """GET `path` of the server listening at `listen`: healthy when it answers 200 (not when
    `listen` is no host:port to ask)."""
    try:
        host, port, url = probe_url(listen, path)
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    except (ValueError, http.client.InvalidURL):  # no port; a space or control character
        return Verdict(False, f"{_one_line(repr(listen))} is not host:port")
    try:
        connection.request("GET", path, headers={"User-Agent": "wizard-bot health"})
        answer = connection.getresponse()
        body = answer.read(4096)
    except TimeoutError:
        return Verdict(False, f"{url}: no answer within {timeout:g} s")
    except ConnectionRefusedError:
        return Verdict(False, f"{url}: connection refused (is the bot running?)")
    except (OSError, http.client.HTTPException) as error:
        said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return Verdict(False, f"{url}: {_one_line(said) or type(error).__name__}")
    finally:
        connection.close()
    status = f"{answer.status} {answer.reason}".strip()
    if answer.status == 200:
        return Verdict(True, f"{url}: {status}")
    kind = answer.getheader("Content-Type", "")
    said = _one_line(body.decode("utf-8", "replace")) if kind.startswith(TEXT) else ""
    return Verdict(False, f"{url}: {status}" + (f": {said}" if said else ""))


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 1] + "…"
