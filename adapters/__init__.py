"""Front ends: each turns what people do on a platform into `bot.requests.Request`s for the one
`bot.service.GameService`, and shows the `Outcome`s it returns there.

- `adapters.console`: the terminal table, one person against AI seats (`wizard-bot play`).

The Telegram and Discord front ends are to come.
"""
