"""The web table: a live table in a browser for one player, over the same `GameService`.

`auth` proves who the page is for (a Telegram Mini App's `initData`, or a signed link);
`view` turns a chat's table into that one player's view as JSON, with every legal move and the
button payload that makes it; `server` is the aiohttp app (the page, `/api/view`, `/api/move`,
`/api/events`) and the watcher that tells open pages a game changed. See docs/web.md.
"""
