"""The Discord front end (discord.py 2): games in server channels, hands in DMs.

- `ids`: service ids of channels and people, names, who counts as an admin;
- `commands`: the slash commands, their requests and their translated descriptions;
- `render`: an Outcome as posts (channel or DM, text, button rows, slot);
- `buttons`: the durable buttons (dynamic items whose state is their custom id);
- `slots`: the Redis map of slot → message id, edited in place;
- `sender`: one post on Discord (send, or edit the slot's message; closed DMs);
- `followups`: each person's newest interaction in a channel, in Redis, to follow up;
- `app`: the interaction handlers and the lifecycle; `run`: `serve(config, redis_url, stop)`.
"""
