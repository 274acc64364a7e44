"""The terminal table: one person plays a seat against AI seats, through the same game service
and store as the chat front ends (`wizard-bot play`).

- `reader`: what a typed line means, given the buttons the last outcome offered;
- `render`: the terminal layout (table, hand, numbered choices, prompts, help);
- `app`: the session (Redis, store, service) and the prompt loop.
"""

from adapters.console.app import PlayArgs, play

__all__ = ["PlayArgs", "play"]
