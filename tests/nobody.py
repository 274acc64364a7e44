"""Work done as an unprivileged user: in a forked child (the interpreter may lie where another
user cannot read it), as uid and gid 65534 when the tests run as root (who may read and write
anywhere), its JSON result sent back through a pipe."""

import json
import os
from collections.abc import Callable
from typing import Any


def as_nobody(work: Callable[[], object]) -> Any:
    """What `work()` returns (as JSON makes it), run in a child as nobody."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        code = 1
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            os.write(writing, json.dumps(work()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return json.loads(data)
