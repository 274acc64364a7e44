"""The Telegram front end (python-telegram-bot): games in groups, hands in private chats.

- `ids`: service ids of chats and people, names, the admin cache;
- `commands`: group commands → requests, the command menu, the join deep link;
- `render`: an Outcome as posts (target chat, HTML, keyboard, slot);
- `slots`: the Redis map of slot → message id, edited in place;
- `sender`: one post on Telegram (send, or edit the slot's message);
- `app`: the PTB handlers and the lifecycle; `run`: `serve(config, redis_url, stop)`.
"""
