"""Chaos: whole games against the real `wizard-bot run` process, which is SIGKILLed at ten random
moments and its redis-server at three, while the test plays the people, pressing only the buttons
they are shown (never /hand). The game finishes; every acknowledged press is in the record, and
nothing twice; nobody is put on autopilot by a crash; and the time from each restart to the next
working button is printed and stays within 5 s."""

import asyncio
import contextlib
import os
import random
import time
from pathlib import Path

from chaos import (
    BotProcess,
    check_game,
    check_restarts,
    record_of,
    schedule,
)
from fake_telegram import FakeTelegram, User
from players import Players, looks, until

from bot.store.redis_server import RedisServer

GROUP = -100777
PLAYERS = (User(2001, "Ann", "ann"), User(2002, "Bob", "bob"), User(2003, "Cid", "cid"))
SEED = int(os.environ.get("WIZARD_CHAOS_SEED", "0")) or random.randrange(1, 10**6)


async def test_a_telegram_game_survives_the_bot_and_redis_killed_at_random(
    redis_alone: RedisServer, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    print(f"chaos seed {SEED} (WIZARD_CHAOS_SEED={SEED} plays this run again)")
    kills = schedule(rng)
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        env = {
            **os.environ,
            "WIZARD_CONFIG": str(tmp_path / "none.toml"),
            "WIZARD_TELEGRAM_TOKEN": fake.token,
            "WIZARD_TELEGRAM_BASE_URL": f"http://127.0.0.1:{fake.port}",
            "WIZARD_REDIS_URL": redis_alone.url,
            "WIZARD_DATA_DIR": str(tmp_path / "data"),
        }
        (tmp_path / "none.toml").write_text("")
        with open(tmp_path / "bot.log", "w") as log:
            bot = BotProcess(env, log)
            chaos = Players(fake, rng, GROUP, PLAYERS)
            try:
                await play(chaos, bot, redis_alone, kills)
            finally:
                await asyncio.to_thread(bot.stop)  # (the fake answers its last calls meanwhile)
                (tmp_path / "presses.log").write_text("\n".join(chaos.log) + "\n")
                chats = [GROUP, *(user.id for user in PLAYERS)]
                shown = "\n\n".join(fake.format_transcript(chat) for chat in chats)
                (tmp_path / "transcripts.txt").write_text(shown)
        output = (tmp_path / "bot.log").read_text()
        record = record_of(redis_alone.url, f"tg:{GROUP}")
        assert record is not None, output[-3000:]
        seats = {user.id: record["players"].index(user.first_name) for user in PLAYERS}
        check_game(record, [(p.data, p.round, seats[p.user.id]) for p in chaos.acked])
        texts = [e.text for e in fake.transcript(GROUP)]
        assert not [t for t in texts if "ran out of time" in t]  # nobody on autopilot
        assert "Traceback" not in output, output[-3000:]
        check_restarts("Telegram", chaos.backs)


async def play(
    chaos: Players, bot: BotProcess, server: RedisServer, schedule: dict[int, str]
) -> None:
    """Seat the people, start, and play to the end, killing what the schedule says when."""
    fake = chaos.fake

    async def ready(polls: int) -> float:
        """When the bot asked for updates again (it is back)."""
        assert await until(lambda: fake.calls["getUpdates"] > polls, 30), "the bot did not start"
        return time.monotonic()

    polls = fake.calls["getUpdates"]
    bot.start()
    await ready(polls)
    for user in PLAYERS:
        fake.start_dm(user)
        fake.send_command(GROUP, user, "/join")
        await fake.wait_idle(timeout=10)
    # Hidden bids: every move is made in a private chat, whose posts are not held back by
    # the group's 20 a minute (the group's table shows the newest state at that pace).
    for option in ("rounds=short", "bids=hidden"):
        fake.send_command(GROUP, PLAYERS[0], f"/options {option}")
        await fake.wait_idle(timeout=10)
    assert await until(
        lambda: any("a new table" in m.text for m in fake.current_messages(GROUP).values()), 10
    )
    lobby = next(m for m in fake.current_messages(GROUP).values() if "a new table" in m.text)
    fake.press_label(GROUP, PLAYERS[0], lobby.message_id, "Start")
    back: tuple[str, float] | None = None
    presses = 0
    while not chaos.over():
        press = await chaos.shown()
        if press is None:
            break
        pressed = next(
            m for m in fake.current_messages(press.chat).values() if m.message_id == press.message
        )
        update = fake.press(press.chat, press.user, press.message, press.data)
        query = update["callback_query"]["id"]
        crash = None
        if back is None and schedule and min(schedule) <= presses:
            crash = schedule.pop(min(schedule))  # (one restart at a time: each is timed)
        presses += 1
        if crash == "bot":
            await asyncio.sleep(chaos.rng.uniform(0, 0.05))
            bot.kill()
            polls = fake.calls["getUpdates"]
            bot.start()
            back = ("bot", await ready(polls))
        elif crash == "redis":
            await asyncio.sleep(chaos.rng.uniform(0, 0.05))
            await asyncio.to_thread(server.kill)
            await asyncio.sleep(chaos.rng.uniform(0.2, 1.5))
            await asyncio.to_thread(server.restart)
            back = ("redis", time.monotonic())
        if crash is not None:
            # The press that was in flight: answered by now, or never (a crashed bot may
            # have taken the update and died before answering it, as on Telegram). A person
            # does not wait on its spinner: they look again.
            chaos.in_flight.append(press)
            chaos.queries.append(query)
            continue
        answer = await chaos.answer_to(query)
        chaos.log.append(
            f"{time.monotonic() - chaos.began:7.2f} {press.user.first_name} "
            f"{'group' if press.chat < 0 else 'dm'} {press.data} {crash or ''} -> "
            f"{'-' if answer is None else ('alert: ' if answer.show_alert else '') + answer.text}"
        )
        with contextlib.suppress(TimeoutError):
            await fake.wait_idle(timeout=5, quiet=0.15)  # a person reads what changed
        if answer is None or answer.show_alert:
            # Not done: the bot died, Redis was away, or the button was out of date (then that
            # message is no use, until it changes).
            if answer is not None and answer.show_alert and "store" not in answer.text:
                chaos.refused.add((press.user.id, press.chat, press.message, looks(pressed)))
            else:
                await asyncio.sleep(0.3)  # a moment, then try again
            continue
        chaos.acked.append(press)
        if back is not None:  # the first working button since
            chaos.backs.append((back[0], time.monotonic() - back[1]))
            back = None
    for press, query in zip(chaos.in_flight, chaos.queries, strict=True):
        answer = fake.callback_answer(query)
        done = answer is not None and not answer.show_alert
        chaos.log.append(f"in flight: {press.user.first_name} {press.data} -> {done}")
        if done:
            chaos.acked.append(press)
