"""What people see, built from the engine's views and never from the game's state:

- `screens`: the lobby, the group's table, each player's hand, round and game ends;
- `option_words`: the table options' names and their words on the lobby's buttons;
- `render`: what a request asks to show (`Shown`), rendered once its write has succeeded;
- `seating`: who sits where as the chat shows them; `look`: a chat's language and deck theme;
- `formatters`: the lines every audience shares (chat, terminal table, replay);
- `themes`: how cards look and are typed; `i18n`: translations, with the catalogs in `locale/`;
- `clusters`: where text may be cut without splitting an emoji;
- `picture`: the score sheet as a PNG, drawn with the fonts in `fonts/` (`picture_fonts`);
- `stats`: the stats, leaderboard and /forgetme replies.
"""
