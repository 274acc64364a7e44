"""The application around the engine: the game service and what front ends give it and get back.

A front end turns what people do into a `Request` from a `User`, hands it to
`GameService.handle`, and shows the `Outcome` it returns: `Message`s with `Button`s. That, the
command table (`bot.commands`), the configuration and what is shown (`bot.show`) are all a front
end needs; it never reaches into the store. The layers and where a change goes are in
docs/architecture.md.

- `service`: the transaction (load → apply → save → notify); `dispatch`: a request through the
  command table; `chat`: the chat table's rules (the lobby, AI seats, autopilot, timeouts);
- `commands`: every command, once; `requests`, `messages`, `tokens`: what goes in and out;
- `table`: a chat's table and settings; `config`; `timers`: the timer loop; `handover`: what a
  worker made outside a request, kept until the timer loop takes it; `weblinks`: the
  web table's addresses and signed links, for the chats' "Open the table" buttons;
- `store/`: Redis; `show/`: screens, formatters, themes, translations; `ai/`: the AI players.

The names below load on first use, so importing one part does not load the others.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.commands import Kind
    from bot.config import Config, ConfigError, load_config
    from bot.messages import Button, Message, Outcome
    from bot.requests import Request, User
    from bot.service import GameService, caused_by_store
    from bot.store import RedisClient, StoreErrors
    from bot.weblinks import WebLinks

_EXPORTS = {
    "Button": "bot.messages",
    "Config": "bot.config",
    "ConfigError": "bot.config",
    "GameService": "bot.service",
    "Kind": "bot.commands",
    "Message": "bot.messages",
    "Outcome": "bot.messages",
    "RedisClient": "bot.store",
    "Request": "bot.requests",
    "StoreErrors": "bot.store",
    "User": "bot.requests",
    "WebLinks": "bot.weblinks",
    "caused_by_store": "bot.service",
    "load_config": "bot.config",
}

__all__ = [
    "Button",
    "Config",
    "ConfigError",
    "GameService",
    "Kind",
    "Message",
    "Outcome",
    "RedisClient",
    "Request",
    "StoreErrors",
    "User",
    "WebLinks",
    "caused_by_store",
    "load_config",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bot' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
