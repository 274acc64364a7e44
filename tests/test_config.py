"""Configuration: defaults, the TOML file, environment overrides and one-line errors."""

import dataclasses
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from nobody import as_nobody

from bot.config import (
    AI_LEVELS,
    ENV_CONFIG,
    ENV_OVERRIDES,
    KEYS,
    LANGUAGES,
    THEMES,
    Config,
    ConfigError,
    DiscordConfig,
    Key,
    MetricsConfig,
    TelegramConfig,
    WebConfig,
    load_config,
)
from bot.config_docs import COMMAND, OPERATIONS, updated_example, updated_operations
from bot.config_rules import SECRET, WEBHOOK_SECRET

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "bot" / "show" / "fonts"
"""Font files for picture_fonts (the shipped ones: they are on every machine)."""
EXAMPLE = ROOT / "config.example.toml"
KNOWN = "en, de, es, fr, it, ko, lv, nl, pl, pt, ro, ru"
"""The languages a config may name, as a config error lists them."""


@pytest.fixture(autouse=True)
def _empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs in an empty directory, so no stray ./wizard.toml is read."""
    monkeypatch.chdir(tmp_path)


def write(tmp_path: Path, text: str, name: str = "wizard.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def error(environ: dict[str, str] | None = None, path: str | None = None) -> str:
    """The message of the ConfigError that loading raises; it must be one line."""
    with pytest.raises(ConfigError) as info:
        load_config(environ or {}, path)
    message = str(info.value)
    assert "\n" not in message
    assert "Traceback" not in message
    assert message.strip() == message
    assert message
    return message


def test_defaults() -> None:
    config = load_config({})
    assert config == Config()
    assert config.redis_url is None
    assert config.data_dir == Path("data")
    assert config.language == "en"
    assert config.theme == "colours"
    assert config.turn_timeout == 90
    assert config.lobby_timeout == 1800
    assert config.finished_ttl == 7 * 24 * 3600
    assert config.ai_level == "normal"
    assert config.ai_names
    assert config.telegram == TelegramConfig()
    assert config.telegram.token is None
    assert config.telegram.webhook_url is None
    assert config.discord == DiscordConfig(token=None, shards=False)
    assert config.log_level == "INFO"
    assert config.language in LANGUAGES
    assert config.theme in THEMES
    assert config.ai_level in AI_LEVELS


def test_config_is_frozen() -> None:
    config = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.language = "de"  # type: ignore[misc]


def test_tokens_are_not_in_repr() -> None:
    config = Config(
        telegram=TelegramConfig(token="123:SECRET", webhook_secret="hush"),
        discord=DiscordConfig(token="DSECRET"),
    )
    assert "SECRET" not in repr(config)
    assert "hush" not in repr(config)


FULL = """
redis_url = "redis://127.0.0.1:7000/2"
data_dir = "/var/lib/wizard"
language = "de"
theme = "french"
turn_timeout = 30
lobby_timeout = 600
finished_ttl = 3600
ai_level = "easy"
ai_names = ["Ada", "Bo"]
log_level = "debug"
log_format = "json"
redis_fsync = "everysec"
redis_timeout = 2.5
redis_cluster = false

[telegram]
token = "123456:ABC-def_1"
base_url = "http://127.0.0.1:8081"
webhook_url = "https://bot.example.org/tg"
webhook_secret = "s3cret_-"
listen = "0.0.0.0:8443"

[discord]
token = "discord.token.here"
shards = true
base_url = "http://127.0.0.1:9000/api"

[metrics]
listen = "127.0.0.1:9100"
"""


def test_file_values(tmp_path: Path) -> None:
    config = load_config({}, write(tmp_path, FULL, "custom.toml"))
    assert config == Config(
        redis_url="redis://127.0.0.1:7000/2",
        data_dir=Path("/var/lib/wizard"),
        language="de",
        theme="french",
        turn_timeout=30,
        lobby_timeout=600,
        finished_ttl=3600,
        ai_level="easy",
        ai_names=("Ada", "Bo"),
        log_level="DEBUG",
        log_format="json",
        redis_fsync="everysec",
        redis_timeout=2.5,
        telegram=TelegramConfig(
            token="123456:ABC-def_1",
            base_url="http://127.0.0.1:8081",
            webhook_url="https://bot.example.org/tg",
            webhook_secret="s3cret_-",
            listen="0.0.0.0:8443",
        ),
        discord=DiscordConfig(
            token="discord.token.here", shards=True, base_url="http://127.0.0.1:9000/api"
        ),
        metrics=MetricsConfig(listen="127.0.0.1:9100"),
    )


def test_partial_file_keeps_other_defaults(tmp_path: Path) -> None:
    config = load_config({}, write(tmp_path, "turn_timeout = 45\n[telegram]\ntoken = '1:x'\n"))
    assert config == Config(turn_timeout=45, telegram=TelegramConfig(token="1:x"))


def test_wizard_toml_in_current_directory_is_read(tmp_path: Path) -> None:
    write(tmp_path, 'language = "es"\n')
    assert load_config({}).language == "es"


def test_a_directory_where_wizard_toml_is_read_is_refused(tmp_path: Path) -> None:
    """A directory at ./wizard.toml (what Docker makes of a bind mount whose file did not
    exist) is not taken for no file: the bot would run on its defaults, the file's settings
    silently lost."""
    (tmp_path / "wizard.toml").mkdir()
    assert error({}) == (
        'cannot read config file "wizard.toml": it is a directory (a bind mount of a file '
        "that was not there?)"
    )
    message = error({"WIZARD_CONFIG": str(tmp_path / "wizard.toml")})
    assert message.startswith("WIZARD_CONFIG: cannot read config file ")
    assert message.endswith(": it is a directory (a bind mount of a file that was not there?)")


def test_wizard_config_names_the_file(tmp_path: Path) -> None:
    write(tmp_path, 'language = "es"\n')
    other = write(tmp_path, 'language = "de"\n', "other.toml")
    assert load_config({"WIZARD_CONFIG": other}).language == "de"
    # An explicit path wins over WIZARD_CONFIG.
    assert load_config({"WIZARD_CONFIG": other}, str(tmp_path / "wizard.toml")).language == "es"


def test_environment_without_a_file() -> None:
    config = load_config({"WIZARD_TELEGRAM_TOKEN": "1:a", "WIZARD_LANGUAGE": "de"})
    assert config == Config(language="de", telegram=TelegramConfig(token="1:a"))


def test_os_environ_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIZARD_LANGUAGE", "es")
    assert load_config().language == "es"


def test_example_file_loads_and_matches_the_defaults() -> None:
    assert load_config({}, str(EXAMPLE)) == Config()


def test_example_file_documents_every_key() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    parts = re.split(r"^\[(\w+)\]$", text, flags=re.MULTILINE)
    tables = {"": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}
    for key in KEYS:
        table = tables[key.section]
        line = re.search(rf"^(# )?{key.field} = .*$", table, re.MULTILINE)
        assert line, key.name
        before = table[: line.start()].rstrip("\n").splitlines()[-1]
        assert before.startswith("#"), f"{key.name} has no comment above it"


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (
            'turn_timeout = "fast"',
            "wizard.toml: turn_timeout must be a whole number of seconds from 10 to 3600, "
            'not "fast"',
        ),
        (
            "turn_timeout = 5",
            "turn_timeout must be a whole number of seconds from 10 to 3600, not 5",
        ),
        ("turn_timeout = true", "turn_timeout must be a whole number of seconds"),
        ("turn_timeout = 12.5", "not 12.5"),
        ("lobby_timeout = 0", "lobby_timeout must be"),
        ("finished_ttl = -1", "finished_ttl must be"),
        ("finished_ttl = 1e12", "finished_ttl must be"),
        ('language = "xx"', f'wizard.toml: unknown language "xx" (known: {KNOWN})'),
        ("language = 1", "language must be a string, not 1"),
        ('theme = "pirates"', 'unknown theme "pirates" (known: colours, races, french)'),
        ('ai_level = "expert"', 'unknown ai_level "expert" (known: easy, normal, hard)'),
        ('log_level = "loud"', 'unknown log_level "loud"'),
        ("ai_names = []", "ai_names must be a list of 1 to 20 names, not a list"),
        ('ai_names = "Ada"', 'ai_names must be a list of 1 to 20 names, not "Ada"'),
        ('ai_names = ["Ada", ""]', "ai_names must hold names of 1 to 32 printable characters"),
        ('ai_names = ["Ada", 3]', "not 3"),
        ('ai_names = ["Ada", "ada"]', 'ai_names has "ada" twice'),
        ('ai_names = ["Line\\nbreak"]', r'not "Line\nbreak"'),
        ('redis_url = "http://x"', "redis_url must be a URL starting with redis:// or rediss://"),
        ('redis_url = "redis://:pw@host:99999"', "not a URL with user info"),
        (
            'redis_url = "redis://127.0.0.1:6379/abc"',
            'redis_url must name its database by number, like redis://host:6379/0, not "redis://',
        ),
        ('redis_url = "redis://host/0?db=x"', "redis_url must name its database by number"),
        ('redis_url = "unix:///r.sock?db=zero"', "like unix:///path.sock?db=0"),
        ('redis_url = "redis://:pw@host/abc"', "by number, like redis://host:6379/0, not a URL"),
        ('redis_fsync = "no"', 'unknown redis_fsync "no" (known: always, everysec)'),
        ("redis_timeout = 0", "redis_timeout must be a number of seconds from 0.05 to 30.0, not 0"),
        ("redis_timeout = 31", "not 31"),
        ('redis_timeout = "1"', 'not "1"'),
        ("redis_timeout = nan", "not nan"),
        ('data_dir = ""', 'data_dir must be a directory path, not ""'),
        ("data_dir = 3", "data_dir must be a string, not 3"),
        ("turn_timeout = " + "9" * 5000, "invalid TOML: Exceeds the limit (4300 digits)"),
        ("ai_names = " + "[" * 5000 + "]" * 5000, "invalid TOML: arrays or tables nested too"),
        ("unknown = 1", "wizard.toml: unknown key unknown"),
        ("langauge = 'en'", "unknown key langauge (did you mean language?)"),
        ("telegram = 1", "telegram must be a table ([telegram]), not 1"),
        (
            "[telegram]\ntokn = '1:a'",
            "wizard.toml: unknown key telegram.tokn (did you mean token?)",
        ),
        ("[telegrm]\ntoken = '1:a'", "unknown key telegrm (did you mean telegram?)"),
        ("[telegram]\ntoken = 5", "telegram.token must be a string"),
        ("[telegram]\ntoken = ''", "telegram.token must be non-empty"),
        ('[telegram]\ntoken = "1:a\\n"', "telegram.token must be non-empty and have no spaces"),
        ("[telegram]\nbase_url = 'ftp://x'", "telegram.base_url must be a URL starting with"),
        ("[discord]\nbase_url = 'ftp://x'", "discord.base_url must be a URL starting with"),
        (
            "[telegram]\nwebhook_url = 'http://x'",
            "webhook_url must be a URL starting with https://",
        ),
        ("[telegram]\nwebhook_secret = 'has space'", "telegram.webhook_secret must be non-empty"),
        ("[telegram]\nwebhook_secret = 'a+b'", "telegram.webhook_secret must be 1 to 256"),
        (
            "[telegram]\nlisten = '8080'",
            'telegram.listen must be host:port (like "127.0.0.1:8080")',
        ),
        ("[telegram]\nlisten = 'host:99999'", "telegram.listen must be host:port"),
        ("[metrics]\nlisten = '127.0.0.1:²'", "metrics.listen must be host:port"),
        ("[web]\nlisten = 'my host:8080'", "web.listen must be host:port"),
        ("[discord]\nshards = 1", "discord.shards must be true or false, not 1"),
        ("[discord]\nshards = 'yes'", 'discord.shards must be true or false, not "yes"'),
        ("[discord]\nshard = true", "unknown key discord.shard (did you mean shards?)"),
        ("[discord.extra]\nx = 1", "unknown key discord.extra"),
    ],
)
def test_file_errors(tmp_path: Path, toml: str, expected: str) -> None:
    message = error(path=write(tmp_path, toml + "\n"))
    assert expected in message
    assert message.startswith(str(tmp_path / "wizard.toml") + ": ")


def test_secrets_are_not_echoed(tmp_path: Path) -> None:
    message = error(path=write(tmp_path, "[telegram]\ntoken = 'TOPSECRET PART'\n"))
    assert "TOPSECRET" not in message


def test_a_placeholder_of_the_examples_left_in_is_refused(tmp_path: Path) -> None:
    # deploy/telegram.env.example and deploy/discord.env.example copied and not edited, or a
    # line of config.example.toml uncommented as it is: refused before any use.
    env = {}
    for line in (ROOT / "deploy" / "telegram.env.example").read_text().splitlines():
        name, equals, value = line.partition("=")
        if equals and not line.startswith("#"):
            env[name] = value
    assert set(env) == {"WIZARD_TELEGRAM_TOKEN", "WIZARD_TELEGRAM_WEBHOOK_SECRET"}
    assert error({"WIZARD_TELEGRAM_TOKEN": env["WIZARD_TELEGRAM_TOKEN"]}) == (
        "WIZARD_TELEGRAM_TOKEN: telegram.token is still the example's placeholder: put the real "
        "one in its place"
    )
    secret = {"WIZARD_TELEGRAM_WEBHOOK_SECRET": env["WIZARD_TELEGRAM_WEBHOOK_SECRET"]}
    assert error({"WIZARD_TELEGRAM_TOKEN": "123456:real", **secret}) == (
        "WIZARD_TELEGRAM_WEBHOOK_SECRET: telegram.webhook_secret is still the example's "
        "placeholder: put the real one in its place"
    )
    discord = (ROOT / "deploy" / "discord.env.example").read_text()
    token = discord.split("WIZARD_DISCORD_TOKEN=")[1].strip()
    assert "placeholder" in error({"WIZARD_DISCORD_TOKEN": token})
    example = (ROOT / "config.example.toml").read_text()
    for line in ('token = "123456789:AAE..."', 'webhook_secret = "change-me"', 'secret = "..."'):
        assert f"# {line}\n" in example
    toml = '[telegram]\ntoken = "123456789:AAE..."\nwebhook_secret = "change-me"\n'
    assert "telegram.token is still the example's placeholder" in error(path=write(tmp_path, toml))
    assert "web.secret is still" in error(path=write(tmp_path, '[web]\nsecret = "..."\n'))
    readme = (ROOT / "README.md").read_text()
    assert "WIZARD_TELEGRAM_TOKEN=123456:ABC-… " in readme
    assert "placeholder" in error({"WIZARD_TELEGRAM_TOKEN": "123456:ABC-…"})
    (tmp_path / "wizard.toml").unlink()
    real = {"WIZARD_DISCORD_TOKEN": "MTA.Gx-y.z_w", "WIZARD_WEB_SECRET": "s3cret-key"}
    assert load_config(environ=real).discord.token == "MTA.Gx-y.z_w"


def test_default_file_error_names_wizard_toml(tmp_path: Path) -> None:
    write(tmp_path, "turn_timeout = 'fast'\n")
    assert error().startswith("wizard.toml: turn_timeout must be")


def test_toml_syntax_error_gives_the_line(tmp_path: Path) -> None:
    message = error(path=write(tmp_path, 'language = "en"\n\nturn_timeout = = 3\n'))
    assert "invalid TOML" in message
    assert "line 3, key turn_timeout" in message


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('language = "en"\nlanguage = "de"\n', "at line 2, key language: it is set twice"),
        (
            '[telegram]\ntoken = "1:a"\n\ntoken = "2:b"\n',
            "at line 4, key telegram.token: it is set twice",
        ),
        ("[discord]\n[discord]\n", "at line 2: the table [discord] is declared twice"),
        ("ai_names = [1,\n", "invalid TOML at the end of the file"),
        ("= 3\n", "invalid TOML at line 1: "),
    ],
)
def test_toml_errors_name_the_key(tmp_path: Path, toml: str, expected: str) -> None:
    message = error(path=write(tmp_path, toml))
    assert expected in message, message


def test_a_data_dir_that_is_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    assert error({"WIZARD_DATA_DIR": "file"}) == (
        'WIZARD_DATA_DIR: data_dir "file" is not a directory'
    )
    path = write(tmp_path, 'data_dir = "file"\n')
    assert error(path=path) == f'{path}: data_dir "file" is not a directory'
    Path(path).unlink()
    (tmp_path / "data").write_text("the default's name, taken by a file")
    assert error() == 'data_dir "data" is not a directory (set data_dir, or WIZARD_DATA_DIR)'


def test_a_data_dir_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    assert error({"WIZARD_DATA_DIR": "file/data"}) == (
        'WIZARD_DATA_DIR: data_dir "file/data" cannot be made: "file" is not a directory'
    )
    assert error({"WIZARD_DATA_DIR": "file/a/b"}) == (
        'WIZARD_DATA_DIR: data_dir "file/a/b" cannot be made: "file" is not a directory'
    )
    assert load_config(environ={"WIZARD_DATA_DIR": "dir/a/b"}).data_dir == Path("dir/a/b")


def _as_nobody(base: Path) -> dict[str, Any]:
    """As an unprivileged user (`as_nobody`), in `base`: what loading the config says of
    data_dirs under its closed folder `locked`."""

    def load() -> dict[str, Any]:
        os.chdir(base)
        said = []
        for value in ("locked", "locked/data"):
            try:
                load_config({"WIZARD_DATA_DIR": value})
            except ConfigError as error:
                said.append(str(error))
        url = {"WIZARD_REDIS_URL": "redis://127.0.0.1:7000/0"}
        kept = str(load_config({"WIZARD_DATA_DIR": "locked", **url}).data_dir)
        return {"uid": os.getuid(), "said": said, "kept": kept}

    seen: dict[str, Any] = as_nobody(load)
    return seen


def test_a_data_dir_this_user_cannot_write_is_named() -> None:
    base = Path(tempfile.mkdtemp())  # not tmp_path: its parent is closed to other users
    try:
        base.chmod(0o755)
        (base / "locked").mkdir(mode=0o555)
        seen = _as_nobody(base)
    finally:
        shutil.rmtree(base)
    uid = seen["uid"]
    assert uid != 0
    assert seen["said"] == [
        f'WIZARD_DATA_DIR: data_dir "locked" cannot be written by this user (uid {uid}): give '
        "it to that user, or choose another",
        f'WIZARD_DATA_DIR: data_dir "locked/data" cannot be made: this user (uid {uid}) cannot '
        'write in "locked"',
    ]
    assert seen["kept"] == "locked"  # with a Redis of its own the bot writes nothing there


def test_redis_settings(tmp_path: Path) -> None:
    assert Config().redis_fsync == "always"
    assert Config().redis_timeout == 1.0
    path = write(tmp_path, 'redis_fsync = "everysec"\nredis_timeout = 2\n')
    config = load_config({}, path)
    assert (config.redis_fsync, config.redis_timeout) == ("everysec", 2.0)
    config = load_config({"WIZARD_REDIS_FSYNC": "always", "WIZARD_REDIS_TIMEOUT": "0.25"}, path)
    assert (config.redis_fsync, config.redis_timeout) == ("always", 0.25)
    assert load_config({"WIZARD_REDIS_URL": "unix:///r.sock?db=3"}).redis_url == (
        "unix:///r.sock?db=3"
    )


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "wizard.toml"
    path.write_bytes(b'language = "\xff"\n')
    assert "not UTF-8" in error(path=str(path))


def test_a_missing_file_named_by_the_environment() -> None:
    assert error({ENV_CONFIG: "missing.toml"}) == (
        'WIZARD_CONFIG: no such config file "missing.toml"'
    )


def test_missing_explicit_file() -> None:
    assert error(path="nowhere.toml") == 'no such config file "nowhere.toml"'


def test_unreadable_file(tmp_path: Path) -> None:
    assert "cannot read config file" in error(path=str(tmp_path))


def test_a_redis_cluster_is_named_by_a_node_and_a_switch(tmp_path: Path) -> None:
    url = "redis://127.0.0.1:7000"
    config = load_config({"WIZARD_REDIS_URL": url, "WIZARD_REDIS_CLUSTER": "yes"})
    assert config.redis_cluster
    assert not load_config({"WIZARD_REDIS_URL": url, "WIZARD_REDIS_CLUSTER": "0"}).redis_cluster
    path = write(tmp_path, f'redis_url = "{url}"\nredis_cluster = true\n')
    assert load_config({}, path).redis_cluster


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"WIZARD_REDIS_CLUSTER": "true"},
            "WIZARD_REDIS_CLUSTER: redis_cluster needs redis_url, a node of the cluster (set "
            "redis_url, or WIZARD_REDIS_URL): the embedded Redis is a single server",
        ),
        (
            {"WIZARD_REDIS_CLUSTER": "maybe"},
            'WIZARD_REDIS_CLUSTER: redis_cluster must be true or false, not "maybe"',
        ),
        (
            {"WIZARD_REDIS_CLUSTER": "1", "WIZARD_REDIS_URL": "redis://127.0.0.1:7000/3"},
            "WIZARD_REDIS_URL: a Redis Cluster is reached over TCP and has database 0 only, like "
            'redis://host:7000, not "redis://127.0.0.1:7000/3"',
        ),
    ],
)
def test_a_redis_cluster_that_cannot_be(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(environ)
    assert str(error.value) == message


# Every key from the environment. GOOD's first row for a variable sets a value FULL does not.
GOOD: list[tuple[str, str, object]] = [
    ("WIZARD_REDIS_URL", "redis://10.0.0.5:7000", "redis://10.0.0.5:7000"),
    ("WIZARD_REDIS_URL", "unix:///run/redis.sock?db=3", "unix:///run/redis.sock?db=3"),
    ("WIZARD_REDIS_FSYNC", "always", "always"),
    ("WIZARD_REDIS_TIMEOUT", "0.25", 0.25),
    ("WIZARD_REDIS_TIMEOUT", "2", 2.0),
    ("WIZARD_REDIS_CLUSTER", "Yes", True),
    ("WIZARD_REDIS_CLUSTER", "0", False),
    ("WIZARD_REDIS_CLUSTER", "ON", True),
    ("WIZARD_DATA_DIR", "state", Path("state")),
    ("WIZARD_LANGUAGE", "es", "es"),
    ("WIZARD_THEME", "races", "races"),
    ("WIZARD_TURN_TIMEOUT", "45", 45),
    ("WIZARD_TURN_TIMEOUT", " 60 ", 60),
    ("WIZARD_TURN_TIMEOUT", "30.0", 30),
    ("WIZARD_TURN_TIMEOUT", "1e2", 100),
    ("WIZARD_LOBBY_TIMEOUT", "900", 900),
    ("WIZARD_FINISHED_TTL", "86_400", 86400),
    ("WIZARD_AI_LEVEL", "hard", "hard"),
    ("WIZARD_STAND_IN", "normal", "normal"),
    ("WIZARD_AI_GRACE", "30", 30),
    ("WIZARD_AI_NAMES", "Cy, Dee,Eve", ("Cy", "Dee", "Eve")),
    ("WIZARD_AI_NAMES", "Solo", ("Solo",)),
    ("WIZARD_AI_NAMES", '["Smith, J", "Bo"]', ("Smith, J", "Bo")),
    ("WIZARD_AI_NAMES", ' [ "Ünal",\n  "Bo" ] ', ("Ünal", "Bo")),
    ("WIZARD_PICTURE_FONTS", f"{FONTS}/DejaVuSans.ttf", (f"{FONTS}/DejaVuSans.ttf",)),
    (
        "WIZARD_PICTURE_FONTS",
        f"{FONTS}/SheetHangul-Bold.ttf, {FONTS}/DejaVuSans.ttf",
        (f"{FONTS}/SheetHangul-Bold.ttf", f"{FONTS}/DejaVuSans.ttf"),
    ),
    ("WIZARD_LOG_LEVEL", "warning", "WARNING"),
    ("WIZARD_LOG_FORMAT", "text", "text"),
    ("WIZARD_LOG_FORMAT", "json", "json"),
    ("WIZARD_TELEGRAM_TOKEN", "999:ENV", "999:ENV"),
    ("WIZARD_TELEGRAM_BASE_URL", "https://tg.example.org", "https://tg.example.org"),
    ("WIZARD_TELEGRAM_WEBHOOK_URL", "https://env.example.org/hook", "https://env.example.org/hook"),
    ("WIZARD_TELEGRAM_WEBHOOK_SECRET", "from-env_1", "from-env_1"),
    ("WIZARD_TELEGRAM_LISTEN", "[::1]:9000", "[::1]:9000"),
    ("WIZARD_DISCORD_TOKEN", "env.discord", "env.discord"),
    ("WIZARD_DISCORD_SHARDS", "off", False),
    ("WIZARD_DISCORD_SHARDS", "true", True),
    (
        "WIZARD_DISCORD_BASE_URL",
        "https://discord.example.org/api",
        "https://discord.example.org/api",
    ),
    ("WIZARD_METRICS_LISTEN", "0.0.0.0:9100", "0.0.0.0:9100"),
    ("WIZARD_WEB_LISTEN", "0.0.0.0:8090", "0.0.0.0:8090"),
    ("WIZARD_WEB_PUBLIC_URL", "https://bot.example.org/t/", "https://bot.example.org/t/"),
    ("WIZARD_WEB_SECRET", "k3y", "k3y"),
    ("WIZARD_WEB_LINK_TTL", "3600", 3600),
    ("WIZARD_WEB_INIT_DATA_TTL", "600", 600),
]
NEEDS = {
    "WIZARD_REDIS_CLUSTER": {"WIZARD_REDIS_URL": "redis://10.0.0.5:7000"},
    "WIZARD_WEB_LISTEN": {"WIZARD_WEB_SECRET": "k3y"},
    "WIZARD_TELEGRAM_WEBHOOK_URL": {"WIZARD_TELEGRAM_WEBHOOK_SECRET": "s3cret"},
}
"""What a variable's good values need besides (a cluster needs a node's URL)."""

BAD: list[tuple[str, str, str]] = [
    ("WIZARD_REDIS_URL", "localhost:6379", "redis_url must be a URL starting with redis://"),
    ("WIZARD_REDIS_URL", "redis://h/x", "redis_url must name its database by number"),
    ("WIZARD_REDIS_FSYNC", "never", 'unknown redis_fsync "never" (known: always, everysec)'),
    (
        "WIZARD_REDIS_TIMEOUT",
        "soon",
        'redis_timeout must be a number of seconds from 0.05 to 30.0, not "soon"',
    ),
    ("WIZARD_REDIS_TIMEOUT", "nan", "redis_timeout must be a number of seconds"),
    ("WIZARD_REDIS_TIMEOUT", "0", "redis_timeout must be a number of seconds"),
    ("WIZARD_REDIS_CLUSTER", "maybe", 'redis_cluster must be true or false, not "maybe"'),
    ("WIZARD_DATA_DIR", " ", 'data_dir must be a directory path, not " "'),
    ("WIZARD_LANGUAGE", "xx", f'unknown language "xx" (known: {KNOWN})'),
    ("WIZARD_LANGUAGE", "de ", 'unknown language "de "'),
    ("WIZARD_THEME", "pirates", 'unknown theme "pirates" (known: colours, races, french)'),
    (
        "WIZARD_TURN_TIMEOUT",
        "5",
        "turn_timeout must be a whole number of seconds from 10 to 3600, not 5",
    ),
    ("WIZARD_TURN_TIMEOUT", "12.5", "turn_timeout must be a whole number of seconds"),
    (
        "WIZARD_TURN_TIMEOUT",
        "fast",
        'turn_timeout must be a whole number of seconds from 10 to 3600, not "fast"',
    ),
    ("WIZARD_TURN_TIMEOUT", "true", "turn_timeout must be a whole number of seconds"),
    ("WIZARD_TURN_TIMEOUT", "inf", "turn_timeout must be a whole number of seconds"),
    ("WIZARD_TURN_TIMEOUT", "1e400", 'from 10 to 3600, not "1e400"'),
    ("WIZARD_TURN_TIMEOUT", "\u0669\u0660", 'from 10 to 3600, not "\u0669\u0660"'),
    ("WIZARD_REDIS_TIMEOUT", "1e400", 'from 0.05 to 30.0, not "1e400"'),
    ("WIZARD_TURN_TIMEOUT", "1" + "0" * 400, "from 10 to 3600, not 1" + "0" * 55 + "..."),
    ("WIZARD_LOBBY_TIMEOUT", "59", "lobby_timeout must be a whole number of seconds from 60"),
    ("WIZARD_FINISHED_TTL", "-1", "finished_ttl must be a whole number of seconds from 60"),
    ("WIZARD_AI_LEVEL", "expert", 'unknown ai_level "expert" (known: easy, normal, hard)'),
    ("WIZARD_STAND_IN", "expert", 'unknown stand_in "expert" (known: easy, normal, hard)'),
    ("WIZARD_AI_GRACE", "0", "ai_grace must be a whole number of seconds from 1 to 600, not 0"),
    ("WIZARD_AI_NAMES", "Ada,ada", 'ai_names has "ada" twice'),
    ("WIZARD_AI_NAMES", "Ada,,Bo", "ai_names must hold names of 1 to 32 printable characters"),
    ("WIZARD_AI_NAMES", ",".join(f"n{i}" for i in range(21)), "ai_names must be a list of 1 to 20"),
    ("WIZARD_AI_NAMES", "[]", "ai_names must be a list of 1 to 20 names, not a list of 0"),
    ("WIZARD_PICTURE_FONTS", "/no/such/font.ttf", 'there is no file "/no/such/font.ttf"'),
    (
        "WIZARD_PICTURE_FONTS",
        f"{FONTS}/LICENSE-Noto.txt",
        'LICENSE-Noto.txt" is not a font file (TrueType, OpenType or .ttc)',
    ),
    ("WIZARD_PICTURE_FONTS", "[]", "picture_fonts must be a list of 1 to 10 files, not a list"),
    ("WIZARD_PICTURE_FONTS", f"{FONTS}/DejaVuSans.ttf,,", "must hold paths of font files"),
    ("WIZARD_AI_NAMES", '["Ada", 3]', "ai_names must hold names of 1 to 32"),
    ("WIZARD_AI_NAMES", '["Ada"', 'ai_names must be a list of 1 to 20 names, not "[\\"Ada\\""'),
    ("WIZARD_AI_NAMES", '["Ada"]\nlanguage = "de"', "ai_names must be a list of 1 to 20 names"),
    ("WIZARD_LOG_LEVEL", "loud", 'unknown log_level "loud"'),
    ("WIZARD_LOG_FORMAT", "xml", 'unknown log_format "xml" (known: text, json)'),
    ("WIZARD_TELEGRAM_TOKEN", "a b", "telegram.token must be non-empty and have no spaces"),
    ("WIZARD_TELEGRAM_BASE_URL", "nope", "telegram.base_url must be a URL starting with https://"),
    (
        "WIZARD_TELEGRAM_WEBHOOK_URL",
        "http://bot.example.org",
        'telegram.webhook_url must be a URL starting with https://, not "http://bot.example.org"',
    ),
    (
        "WIZARD_TELEGRAM_WEBHOOK_SECRET",
        "a+b",
        "telegram.webhook_secret must be 1 to 256 characters of A-Z, a-z, 0-9, _ and -",
    ),
    (
        "WIZARD_TELEGRAM_LISTEN",
        "8080",
        'telegram.listen must be host:port (like "127.0.0.1:8080"), not "8080"',
    ),
    ("WIZARD_DISCORD_TOKEN", "x\ny", "discord.token must be non-empty and have no spaces"),
    ("WIZARD_DISCORD_SHARDS", "2", 'discord.shards must be true or false, not "2"'),
    ("WIZARD_DISCORD_BASE_URL", "nope", "discord.base_url must be a URL starting with https://"),
    ("WIZARD_METRICS_LISTEN", "localhost", "metrics.listen must be host:port"),
    (
        "WIZARD_METRICS_LISTEN",
        "127.0.0.1:70000",
        'metrics.listen must be host:port with a port from 1 to 65535 (like "127.0.0.1:8080"), '
        'not "127.0.0.1:70000": 70000 is no port',
    ),
    ("WIZARD_WEB_LISTEN", "[::1]:0", "web.listen must be host:port with a port from 1 to 65535"),
    (
        "WIZARD_TELEGRAM_LISTEN",
        "0.0.0.0:65536",
        "telegram.listen must be host:port with a port from 1 to",
    ),
    ("WIZARD_TELEGRAM_LISTEN", "127.0.0.1:²", 'telegram.listen must be host:port (like "127'),
    ("WIZARD_METRICS_LISTEN", "a b:9100", 'metrics.listen must be host:port (like "127.0.0'),
    ("WIZARD_METRICS_LISTEN", "\tlocalhost:9100", "metrics.listen must be host:port"),
    ("WIZARD_DATA_DIR", "d" * 300, "cannot be used: File name too long"),
    ("WIZARD_WEB_LISTEN", "8080", "web.listen must be host:port"),
    ("WIZARD_WEB_LISTEN", "host\x00:8080", "web.listen must be host:port"),
    ("WIZARD_WEB_LISTEN", "[::1]:８０", "web.listen must be host:port"),
    ("WIZARD_WEB_SECRET", "a b", "web.secret must be non-empty and have no spaces"),
    ("WIZARD_WEB_PUBLIC_URL", "ftp://x", "web.public_url must be a URL starting with https://"),
    ("WIZARD_WEB_LINK_TTL", "5", "web.link_ttl must be"),
    ("WIZARD_WEB_INIT_DATA_TTL", "100000", "web.init_data_ttl must be"),
]


def test_every_field_of_config_is_one_key() -> None:
    sections = {
        "telegram": TelegramConfig,
        "discord": DiscordConfig,
        "metrics": MetricsConfig,
        "web": WebConfig,
    }
    fields = [
        f"{top.name}.{inner.name}" if top.name in sections else top.name
        for top in dataclasses.fields(Config)
        for inner in (dataclasses.fields(sections[top.name]) if top.name in sections else [top])
    ]
    assert sorted(fields) == sorted(key.name for key in KEYS)


def test_the_web_table_needs_a_key_to_sign_its_links() -> None:
    with pytest.raises(ConfigError, match="WIZARD_WEB_LISTEN: the web table signs its links"):
        load_config({"WIZARD_WEB_LISTEN": "127.0.0.1:8090"}, None)
    signed = load_config({"WIZARD_WEB_LISTEN": "127.0.0.1:8090", "WIZARD_WEB_SECRET": "k"}, None)
    assert signed.web == WebConfig(listen="127.0.0.1:8090", secret="k")
    token = load_config({"WIZARD_WEB_LISTEN": "127.0.0.1:8090", "WIZARD_DISCORD_TOKEN": "t"}, None)
    assert token.web == WebConfig(listen="127.0.0.1:8090")  # its key comes from the token


def test_a_webhook_needs_its_secret(tmp_path: Path) -> None:
    # Without one the webhook takes any POST to its address: anyone who finds it plays as
    # anyone.
    url = {"WIZARD_TELEGRAM_TOKEN": "123456:real", "WIZARD_TELEGRAM_WEBHOOK_URL": "https://b.org/t"}
    assert error(url) == (
        "WIZARD_TELEGRAM_WEBHOOK_URL: the webhook needs telegram.webhook_secret "
        "(WIZARD_TELEGRAM_WEBHOOK_SECRET), or anyone who finds its address can post updates as "
        "any player: set one (1 to 256 of A-Z a-z 0-9 _ -)"
    )
    path = write(tmp_path, '[telegram]\nwebhook_url = "https://b.org/t"\n')
    assert error(path=path).startswith(f"{path}: the webhook needs telegram.webhook_secret")
    config = load_config(environ={**url, "WIZARD_TELEGRAM_WEBHOOK_SECRET": "s3cret"}, path=path)
    assert config.telegram.webhook_secret == "s3cret"


def test_variables_are_named_after_their_keys() -> None:
    assert ENV_OVERRIDES["WIZARD_TELEGRAM_WEBHOOK_SECRET"].name == "telegram.webhook_secret"
    assert ENV_OVERRIDES["WIZARD_TURN_TIMEOUT"].name == "turn_timeout"
    assert ENV_OVERRIDES["WIZARD_METRICS_LISTEN"].name == "metrics.listen"
    assert ENV_OVERRIDES["WIZARD_LOG_FORMAT"].name == "log_format"
    assert len(ENV_OVERRIDES) == len(KEYS)
    assert ENV_CONFIG not in ENV_OVERRIDES
    # The names the bot has always read keep working.
    for variable, key in {
        "WIZARD_REDIS_URL": "redis_url",
        "WIZARD_REDIS_FSYNC": "redis_fsync",
        "WIZARD_REDIS_TIMEOUT": "redis_timeout",
        "WIZARD_REDIS_CLUSTER": "redis_cluster",
        "WIZARD_DATA_DIR": "data_dir",
        "WIZARD_LANGUAGE": "language",
        "WIZARD_TELEGRAM_TOKEN": "telegram.token",
        "WIZARD_TELEGRAM_BASE_URL": "telegram.base_url",
        "WIZARD_DISCORD_TOKEN": "discord.token",
        "WIZARD_DISCORD_BASE_URL": "discord.base_url",
    }.items():
        assert ENV_OVERRIDES[variable].name == key


def test_every_variable_has_good_and_bad_values() -> None:
    assert {row[0] for row in GOOD} == set(ENV_OVERRIDES)
    assert {row[0] for row in BAD} == set(ENV_OVERRIDES)


@pytest.mark.parametrize(("variable", "text", "expected"), GOOD)
def test_a_good_value_from_the_environment_is_taken(
    variable: str, text: str, expected: object
) -> None:
    config = load_config({**NEEDS.get(variable, {}), variable: text})
    assert ENV_OVERRIDES[variable].value_in(config) == expected


@pytest.mark.parametrize(("variable", "text", "expected"), BAD)
def test_a_bad_value_from_the_environment_is_refused(
    tmp_path: Path, variable: str, text: str, expected: str
) -> None:
    key = ENV_OVERRIDES[variable]
    message = error({**NEEDS.get(variable, {}), variable: text})
    assert message.startswith(f"{variable}: "), message
    assert key.name in message
    assert expected in message, message
    # The same value in the file is refused with the same problem, naming the file instead.
    if key.rule.read(text) != text:
        return  # the file writes it another way (a number, a switch, a list)
    section = f"[{key.section}]\n" if key.section else ""
    path = write(tmp_path, f"{section}{key.field} = {json.dumps(text)}\n")
    assert error(path=path) == f"{path}: {message.removeprefix(f'{variable}: ')}"


def test_the_environment_wins_over_the_file_for_every_key(tmp_path: Path) -> None:
    firsts = {variable: (text, value) for variable, text, value in reversed(GOOD)}
    path = write(tmp_path, FULL)
    from_file = load_config({}, path)
    config = load_config({v: text for v, (text, _) in firsts.items()}, path)
    for variable, (_, value) in firsts.items():
        key = ENV_OVERRIDES[variable]
        assert key.value_in(from_file) != value, f"FULL already sets {key.name} so"
        assert key.value_in(config) == value, key.name


def test_an_empty_variable_counts_as_unset_for_every_key(tmp_path: Path) -> None:
    path = write(tmp_path, FULL, "custom.toml")
    empty = dict.fromkeys([*ENV_OVERRIDES, ENV_CONFIG], "")
    assert load_config(empty, path) == load_config({}, path)
    assert load_config(empty) == Config()


@pytest.mark.parametrize("key", [key for key in KEYS if key.rule in (SECRET, WEBHOOK_SECRET)])
def test_secrets_from_the_environment_are_not_echoed(key: Key) -> None:
    message = error({key.variable: "TOPSECRET PART"})
    assert message.startswith(f"{key.variable}: ")
    assert "TOPSECRET" not in message


def test_a_redis_password_from_the_environment_is_not_echoed() -> None:
    message = error({"WIZARD_REDIS_URL": "redis://:hunter2@host/abc"})
    assert "hunter2" not in message
    assert message.endswith("not a URL with user info")


def test_the_written_lists_of_variables_are_up_to_date() -> None:
    example = EXAMPLE.read_text(encoding="utf-8")
    assert updated_example(example) == example, (
        f"config.example.toml's list of variables is out of date: run {COMMAND}"
    )
    operations = OPERATIONS.read_text(encoding="utf-8")
    assert updated_operations(operations) == operations, (
        f"docs/operations.md's table of variables is out of date: run {COMMAND}"
    )
    for key in KEYS:
        assert f"#   {key.variable} " in example
        assert f"| `{key.variable}` | `{key.name}` |" in operations


@pytest.mark.parametrize(
    ("variable", "meant"),
    [
        ("WIZARD_TURN_TIMOUT", "WIZARD_TURN_TIMEOUT"),
        ("WIZARD_TELEGRAM_TOKN", "WIZARD_TELEGRAM_TOKEN"),
        ("WIZARD_LOGLEVEL", "WIZARD_LOG_LEVEL"),
        ("WIZARD_DATADIR", "WIZARD_DATA_DIR"),
        ("WIZARD_CONFG", "WIZARD_CONFIG"),
    ],
)
def test_a_misspelt_variable_is_refused_with_the_one_meant(variable: str, meant: str) -> None:
    """A variable whose name is a slip of a key's (which would otherwise leave that key at its
    default unsaid, as an unknown key in the file is not) is refused, naming the one meant."""
    assert error({variable: "30"}) == (
        f"{variable}: no such variable (did you mean {meant}?): correct its name, or unset it"
    )
    assert load_config({variable: ""}) == Config()  # empty: unset, as for any variable


def test_other_variables_of_the_prefix_are_left_alone() -> None:
    """The project's other variables (the build's, compose's proxy's, the chaos tests') and
    names like no key's are not the configuration's to refuse."""
    others = ("WIZARD_PURE_PYTHON", "WIZARD_DOMAIN", "WIZARD_CHAOS_SEED", "WIZARD_HOME")
    assert load_config(dict.fromkeys(others, "1")) == Config()


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Some editors (Windows Notepad's "UTF-8 with BOM") put an invisible mark before the text,
    which TOML's reader takes for a statement: the file is read as the same file without it,
    its errors at the same lines."""
    path = tmp_path / "wizard.toml"
    path.write_text("turn_timeout = 45\n", encoding="utf-8-sig")
    assert load_config({}, str(path)).turn_timeout == 45
    path.write_text("turn_timeout = 45\nturn_timeout = 5 5\n", encoding="utf-8-sig")
    assert error(path=str(path)).startswith(f"{path}: invalid TOML at line 2, key turn_timeout: ")
