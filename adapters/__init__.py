"""Front ends: each turns what people do on a platform into `bot.requests.Request`s for the one
`bot.service.GameService`, and shows the `Outcome`s it returns there.

- `console/`: the terminal table, one person against AI seats (`wizard-bot play`);
- `telegram/` and `discord/`: the chat bots;
- `outbox`, `slots`: the paced per-chat delivery and the slot map both chat bots share;
- `serve`: starts every configured chat front end in one process; `running`: Redis, the loop,
  the signals;
- `cli`: the `wizard-bot` command line.

No front end imports another (lint rules in each package's ruff.toml say so).
"""
