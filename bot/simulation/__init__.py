"""Random games played fast for `wizard-bot simulate` (`randomgames`), compiled where the
install compiled them and only while their source is the one compiled (`bot.native`)."""

from bot import native

native.choose(native.GAMES)  # before anything imports them: compiled only while current
