"""Translations: the catalogs load and parse, texts fall back to English, plurals and
placeholders work, every engine refusal has a sentence, and the extraction tool finds texts."""

import dataclasses
import gettext
import random
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.ai import LEVELS
from bot.show import i18n
from bot.show.coach import points as coach_points
from bot.show.coach import round_review
from bot.show.formatters import standings
from bot.show.i18n import (
    DEFAULT_LANGUAGE,
    ERROR_MESSAGES,
    LANGUAGES,
    Texts,
    compile_catalog,
    error_text,
    texts,
)
from bot.show.look import Look
from bot.show.screens import player_result, table_text
from bot.show.seating import Seating, dealer_mark
from bot.show.stats import LEVEL_WORDS, level_word, typed_level
from bot.show.themes import DEFAULT_THEME
from engine import Card, ErrorCode, Options, Phase, RoundsPlan, step, table_view
from engine.randomplay import new_game, random_command

OWN_MODULES = ("bot/show/i18n.py", "bot/show/themes.py")


def own_msgids() -> set[str]:
    """The texts marked in this module's own files (other modules translate theirs)."""
    template = i18n.extract_messages()
    return {
        message.id if isinstance(message.id, str) else message.id[0]
        for message in template
        if message.id and any(path in OWN_MODULES for path, _ in message.locations)
    }


def test_languages() -> None:
    # en, de, es; the rule pages' lv, ro, ko; and fr, it, nl, pl, pt, ru
    assert set(LANGUAGES) == {
        "en",
        "de",
        "es",
        "lv",
        "ro",
        "ko",
        "fr",
        "it",
        "nl",
        "pl",
        "pt",
        "ru",
    }
    assert LANGUAGES["de"] == "Deutsch"
    assert LANGUAGES["ko"] == "한국어"
    assert DEFAULT_LANGUAGE == "en"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_each_language_loads(language: str) -> None:
    t = texts(language)
    assert isinstance(t, Texts)
    assert t.language == language
    assert t.name == LANGUAGES[language]
    assert texts(language) is t  # cached
    expected = {"en": "Join", "de": "Beitreten", "es": "Unirse"}.get(language)
    assert t("Join") == t.gettext("Join")
    assert t("Join") == expected if expected else t("Join") != "Join"


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("de", "de"),
        ("DE", "de"),
        ("de-AT", "de"),
        ("es_419", "es"),
        ("en-GB", "en"),
        ("fr", "fr"),
        ("pt-BR", "pt"),
        ("ja", "en"),
        ("", "en"),
        (None, "en"),
        ("zz-top", "en"),
    ],
)
def test_language_codes_resolve(code: str | None, language: str) -> None:
    assert texts(code).language == language


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_missing_translation_falls_back_to_english(language: str) -> None:
    t = texts(language)
    assert t("No catalog has this text.") == "No catalog has this text."
    assert t("No catalog has {this}.", this="that") == "No catalog has that."
    assert t.ngettext("{n} unknown", "{n} unknowns", 1) == "{n} unknown"
    assert t.ngettext("{n} unknown", "{n} unknowns", 2) == "{n} unknowns"


def test_formatting_with_kwargs() -> None:
    assert texts("en")("Round {round} of {rounds}", round=3, rounds=20) == "Round 3 of 20"
    assert texts("de")("Round {round} of {rounds}", round=3, rounds=20) == "Runde 3 von 20"
    assert texts("es")("Round {round} of {rounds}", round=3, rounds=20) == "Ronda 3 de 20"
    assert texts("de")("{name} won the trick", name="Ann") == "Ann hat den Stich gewonnen"
    # without kwargs the text is not formatted, so braces are left alone
    assert texts("de")("Trump: {suit}") == "Trumpf: {suit}"


def test_a_broken_translation_falls_back_to_the_msgid() -> None:
    catalog = Catalog(locale="de", domain="messages", fuzzy=False)
    catalog.add("Hello {name}", "Hallo {nmae}")
    t = Texts("de", compile_catalog(catalog))
    assert t("Hello {name}") == "Hallo {nmae}"
    assert t("Hello {name}", name="Ann") == "Hello Ann"


def test_fuzzy_translations_are_not_used() -> None:
    catalog = Catalog(locale="de", domain="messages", fuzzy=False)
    catalog.add("Hello", "Hallo", flags=["fuzzy"])
    catalog.add("Bye", "Tschüss")
    t = Texts("de", compile_catalog(catalog))
    assert t("Hello") == "Hello"
    assert t("Bye") == "Tschüss"


def test_texts_without_catalog() -> None:
    t = Texts("xx", gettext.NullTranslations())
    assert t("Join") == "Join"
    assert t.name == "xx"


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "1 trick", "2 tricks"),
        ("de", "1 Stich", "2 Stiche"),
        ("es", "1 baza", "2 bazas"),
    ],
)
def test_plural_forms(language: str, one: str, many: str) -> None:
    t = texts(language)
    assert t.ngettext("{n} trick", "{n} tricks", 1).format(n=1) == one
    assert t.ngettext("{n} trick", "{n} tricks", 2).format(n=2) == many
    zero = t.ngettext("{n} trick", "{n} tricks", 0).format(n=0)
    assert zero == many.replace("2", "0")
    million = t.ngettext("{n} trick", "{n} tricks", 1_000_000)
    assert million == t.ngettext("{n} trick", "{n} tricks", 2)


@dataclass(frozen=True)
class _Mistake:
    round: int
    trick: int | None
    kind: str
    chosen: int | Card
    better: int | Card
    cost: float
    alike: tuple[Card, ...] = ()


@pytest.mark.parametrize(
    ("language", "cost", "said"),
    [
        ("en", 1, "was worth 1 point more"),
        ("en", 5, "was worth 5 points more"),
        ("de", 1, "war 1 Punkt mehr wert"),
        ("fr", 1, "valait 1 point de plus"),
        ("fr", 2, "valait 2 points de plus"),
        ("ru", 1, "на 1 очко больше"),
        ("ru", 3, "на 3 очка больше"),
        ("ru", 11, "на 11 очков больше"),
        ("ru", 21, "на 21 очко больше"),
        ("ro", 1, "cu 1 punct mai mult"),
        ("ro", 19, "cu 19 puncte mai mult"),
        ("ro", 20, "cu 20 de puncte mai mult"),
        ("ro", 101, "cu 101 puncte mai mult"),
        ("lv", 1, "par 1 punktu vairāk"),
        ("lv", 11, "par 11 punktiem vairāk"),
        ("lv", 21, "par 21 punktu vairāk"),
        ("pl", 1, "o 1 punkt więcej"),
        ("pl", 4, "o 4 punkty więcej"),
        ("pl", 12, "o 12 punktów więcej"),
        ("pl", 22, "o 22 punkty więcej"),
        ("ko", 7, "7점 더 나았어요"),
    ],
)
def test_the_coach_counts_points_in_each_languages_plural(
    language: str, cost: int, said: str
) -> None:
    look = Look(texts(language), DEFAULT_THEME)
    mistake = _Mistake(1, None, "bid", 2, 1, cost)
    review = round_review(look, "p", 1, [mistake]).text
    assert said in review, review


@pytest.mark.parametrize(
    ("language", "value", "said"),
    [
        ("en", 1, "+1 point expected"),
        ("en", -1, "−1 point expected"),
        ("en", 0, "0 points expected"),
        ("ru", 21, "ожидается +21 очко"),
        ("ru", -5, "ожидается −5 очков"),
        ("ro", 20, "+20 de puncte așteptate"),
        ("lv", 21, "gaidāms +21 punkts"),
        ("pl", -2, "oczekiwane −2 punkty"),
    ],
)
def test_the_coachs_hints_count_points_in_each_languages_plural(
    language: str, value: int, said: str
) -> None:
    t = texts(language)
    text = t.ngettext(
        "{card}: {points} point expected this round",
        "{card}: {points} points expected this round",
        abs(value),
    ).format(card="🔺13", points=coach_points(value))
    assert said in text, text


def test_a_name_and_what_is_said_of_it_are_joined_as_the_language_joins_them() -> None:
    french = Look(texts("fr"), DEFAULT_THEME)
    review = round_review(french, "p", 1, [_Mistake(1, None, "bid", 2, 1, 12)]).text
    assert "• Votre annonce\u00a0: vous avez annoncé 2\u00a0;" in review, review
    assert standings(french, ["Ann", "Bob"], [30, 50], [2, 1])[:2] == [
        "🥇 Bob\u00a0: 50",
        "🥈 Ann\u00a0: 30",
    ]
    english = Look(texts("en"), DEFAULT_THEME)
    assert standings(english, ["Ann", "Bob"], [30, 50], [2, 1])[0] == "🥇 Bob: 50"


@pytest.mark.parametrize(
    ("language", "free", "said"),
    [
        ("en", 1, "1 seat free"),
        ("en", 5, "5 seats free"),
        ("fr", 1, "1 place libre"),
        ("ru", 1, "1 свободное место"),
        ("ru", 3, "3 свободных места"),
        ("ru", 5, "5 свободных мест"),
        ("pl", 2, "2 wolne miejsca"),
        ("pl", 5, "5 wolnych miejsc"),
        ("lv", 1, "1 brīva vieta"),
        ("lv", 4, "4 brīvas vietas"),
    ],
)
def test_the_lobbys_free_seats_are_a_plural(language: str, free: int, said: str) -> None:
    text = texts(language).ngettext("{free} seat free", "{free} seats free", free)
    assert text.format(free=free) == said


@pytest.mark.parametrize(
    ("language", "cards", "said"),
    [
        ("en", 1, "🔮 Round 1 of 20 · 1 card"),
        ("en", 3, "🔮 Round 3 of 20 · 3 cards"),
        ("ru", 1, "🔮 Раунд 1 из 20 · 1 карта"),
        ("ru", 3, "🔮 Раунд 3 из 20 · 3 карты"),
        ("ru", 5, "🔮 Раунд 5 из 20 · 5 карт"),
        ("pl", 2, "🔮 Runda 2 z 20 · 2 karty"),
        ("pl", 5, "🔮 Runda 5 z 20 · 5 kart"),
        ("ro", 20, "🔮 Runda 20 din 20 · 20 de cărți"),
        ("lv", 1, "🔮 1. raunds no 20 · 1 kārts"),
        ("de", 4, "🔮 Runde 4 von 20 · 4 Karten"),
    ],
)
def test_the_tables_head_counts_cards_in_each_languages_plural(
    language: str, cards: int, said: str
) -> None:
    state = new_game(3, Options(), seed=3)
    rng = random.Random(3)
    while state.round.number < cards or state.phase is Phase.TRUMP:
        step(state, random_command(state, rng))
    seating = Seating("g1", ("Ann", "Bob", "Cid"), 0, frozenset(), "s", "r")
    text = table_text(Look(texts(language), DEFAULT_THEME), table_view(state), seating)
    assert text.splitlines()[0] == said, text


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "First place: Ann, Bob"),
        ("de", "Platz 1: Ann, Bob"),
        ("ko", "1위: Ann, Bob"),
        ("ru", "Первое место: Ann, Bob"),
        ("pt", "Primeiro lugar: Ann, Bob"),
    ],
)
def test_the_winners_are_named_by_their_place_whether_one_or_two(language: str, said: str) -> None:
    """The others' own results name who came first by the place, a word that takes no number
    and no gender: two who share it read `First place: Ann, Bob`; it said `Winner: Ann, Bob`,
    and `Победитель`, `Vencedor`, `Câștigător` took a man's form for every winner (Spanish,
    French, Italian and Polish said the place already)."""
    state = new_game(3, Options(rounds=RoundsPlan.SHORT), seed=3)
    rng = random.Random(3)
    while state.phase is not Phase.FINISHED:
        step(state, random_command(state, rng))
    view = dataclasses.replace(table_view(state), places=(1, 1, 3))
    seating = Seating("g1", ("Ann", "Bob", "Cid"), 0, frozenset(), "s", "r")
    look = Look(texts(language), DEFAULT_THEME)
    lines = player_result(look, view, seating, 2).text.splitlines()
    assert said in lines, lines


@pytest.mark.parametrize("language", list(LANGUAGES))
@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_has_a_message(language: str, code: ErrorCode) -> None:
    assert code in ERROR_MESSAGES
    text = error_text(texts(language), code)
    assert text
    assert text != str(code)
    assert code.value not in text
    if language != DEFAULT_LANGUAGE:
        assert text != error_text(texts(DEFAULT_LANGUAGE), code), "not translated"


def test_error_messages_are_distinct() -> None:
    for language in LANGUAGES:
        sentences = [error_text(texts(language), code) for code in ErrorCode]
        assert len(set(sentences)) == len(sentences)


def test_error_text_examples() -> None:
    assert error_text(texts("en"), ErrorCode.MUST_FOLLOW_SUIT) == "You must follow suit."
    assert error_text(texts("de"), ErrorCode.MUST_FOLLOW_SUIT) == "Du musst Farbe bedienen."
    assert error_text(texts("es"), "must_follow_suit") == "Debes seguir el palo."
    assert error_text(texts("en"), "no_such_code") == "That is not possible right now."


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_po_files_parse(language: str) -> None:
    path = i18n.po_path(language)
    assert path.is_file()
    with path.open("rb") as file:
        catalog = read_po(file, locale=language, abort_invalid=True)
    assert str(catalog.locale) == language
    assert catalog.num_plurals == {"ko": 1, "lv": 3, "pl": 3, "ro": 3, "ru": 3}.get(language, 2)
    assert not catalog.fuzzy
    assert len(catalog) > 100
    assert i18n.placeholder_problems(catalog) == []


def test_no_french_translation_elides_nothing_before_a_name() -> None:
    """French elides `de`, `que`, `le`... before a vowel (`d'Ana`, never `de Ana`): written
    right before a name's placeholder, the word is wrong for every name that begins with one,
    and the translation cannot know which. `check` names such a translation."""
    sample = Catalog(locale="fr")
    sample.add("Waiting for bids from {names}.", "En attente des annonces de {names}.")
    sample.add("{name} to bid.", "À {name} d’annoncer.")
    sample.add("{n} players", "de {n} joueurs")
    assert i18n.elision_problems(sample) == [
        "'Waiting for bids from {names}.': 'En attente des annonces de {names}.'"
    ]
    for language in LANGUAGES:
        assert i18n.elision_problems(i18n.read_catalog(language)) == [], language


def test_no_italian_article_comes_before_a_placeholder() -> None:
    """Italian's article takes the form of the word after it (`il 64%`, `l'84%`, `l'8%`):
    right before a placeholder, a number or a word the translation cannot see, it is wrong
    for some of them; so is `a` before a name (`ad Anna`: `Tocca a {name}` read `Tocca a
    Anna`). `check` names such a translation."""
    sample = Catalog(locale="it")
    sample.add("met {chance} of the time", "azzeccata il {chance} delle volte")
    sample.add("{name}'s turn", "Tocca a {name}")
    sample.add("Follow {suit} if you can.", "Rispondi a {suit} se puoi.")
    sample.add("{name} to play.", "Gioca {name}.")
    assert i18n.elision_problems(sample) == [
        "'met {chance} of the time': 'azzeccata il {chance} delle volte'",
        "\"{name}'s turn\": 'Tocca a {name}'",
    ]
    assert i18n.elision_problems(i18n.read_catalog("it")) == []


def test_no_name_comes_right_after_a_preposition_that_declines_it() -> None:
    """Polish and Russian decline a name after a preposition (`w grupie Rodzina`, never `w
    Rodzina`), and a translation cannot decline a name it does not know: it names what the
    name is instead (`w grupie {group}`), as it does for a player (`gracza {name}`). `check`
    names such a translation."""
    sample = Catalog(locale="pl")
    sample.add("at the table in {group}", "przy stole w {group}")
    sample.add("{name} to play.", "Teraz gra {name}.")
    sample.add("{place} of {players}", "{place} z {players}")
    assert i18n.elision_problems(sample) == ["'at the table in {group}': 'przy stole w {group}'"]
    russian = Catalog(locale="ru")
    russian.add("{name} has not finished a game", "Ни одной игры с участием {name}.")
    russian.add("{name} has no game", "У игрока {name} нет игр.")
    russian.add("as {chat}", "Ты пишешь от имени {chat}.")
    russian.add("nobody called {name}", "Никто по имени {name}.")
    assert i18n.elision_problems(russian) == [
        "'{name} has not finished a game': 'Ни одной игры с участием {name}.'",
        "'as {chat}': 'Ты пишешь от имени {chat}.'",
    ]
    for language in ("pl", "ru"):
        assert i18n.elision_problems(i18n.read_catalog(language)) == [], language


def test_no_german_text_puts_a_group_s_title_right_after_in() -> None:
    """German `an den Tisch in Zauberer` reads the group's title as a place, and a title with
    an article (`Die Zauberer`) would need it declined (`in den Zauberern`): the text says
    `in der Gruppe {group}`, as Polish and Russian do. `check` names such a translation."""
    sample = Catalog(locale="de")
    sample.add("at the table in {group}", "an den Tisch in {group}")
    sample.add("in round {round}", "in Runde {round}, in {n} Spielen")
    sample.add("at the table in {group} too", "an den Tisch in der Gruppe {group}")
    assert i18n.elision_problems(sample) == ["'at the table in {group}': 'an den Tisch in {group}'"]
    assert i18n.elision_problems(i18n.read_catalog("de")) == []


def test_no_spanish_portuguese_or_italian_text_puts_a_group_s_title_right_after_in() -> None:
    """Spanish `a la mesa en Magos`, Portuguese `à mesa em Magos` and Italian `al tavolo in
    Magos` read the group's title as a place, as German `in Zauberer` does, and a title with
    an article (`Los Magos`, `Os Magos`) would need it joined (`en Los Magos`, `nos Magos`):
    the text says `en el grupo {group}` (`no grupo {group}`, `nel gruppo {group}`). `check`
    names such a translation."""
    cases = {
        "es": ("a la mesa en {group}", "en la ronda {round}, en {n} partidas, de {chat}"),
        "pt": ("à mesa em {group}", "na rodada {round}, em {n} partidas, do grupo {group}"),
        "it": ("al tavolo in {group}", "in {n} partite, nel gruppo {group}, come {chat}"),
    }
    for language, (wrong, right) in cases.items():
        sample = Catalog(locale=language)
        sample.add("at the table in {group}", wrong)
        sample.add("in round {round}", right)
        assert i18n.elision_problems(sample) == [f"'at the table in {{group}}': {wrong!r}"]
        assert i18n.elision_problems(i18n.read_catalog(language)) == [], language


def test_no_korean_particle_comes_right_after_a_placeholder() -> None:
    """A Korean particle takes the form of the last sound before it (`민준이`, `지아가`;
    `⭐9를`, `🧙을`): right after a placeholder, a name, a card or a number the translation
    cannot see, it is wrong for some of them, and the fallback `을(를)` reads as a form not
    filled in (`예지: 🟩9을(를) 보지 못한 채 냈어요`). The text puts a noun between or says it
    another way; `check` names such a translation."""
    sample = Catalog(locale="ko")
    sample.add("you played {card}", "{card}을(를) 냈어요")
    sample.add("{name} wins", "{name}이 이겼어요")
    sample.add("you bid {bid}", "{bid}(으)로 예측했어요")
    sample.add("{name} to play", "{name} 님 차례예요")
    sample.add("{n} tricks", "{n}개의 트릭, {n}가지")
    sample.add("as {chat}", "{chat}의 이름으로, {rating}에서, 낸 카드 {card}보다")
    assert i18n.elision_problems(sample) == [
        "'you played {card}': '{card}을(를) 냈어요'",
        "'{name} wins': '{name}이 이겼어요'",
        "'you bid {bid}': '{bid}(으)로 예측했어요'",
    ]
    assert i18n.elision_problems(i18n.read_catalog("ko")) == []


def test_no_word_after_a_name_takes_a_gender() -> None:
    """A Russian or Polish past tense or short adjective takes the gender of whom it is said
    of: right after a name the translation cannot see, it is wrong for half the players
    (`Оля (сдающий) должен изменить заявку`). The text says it without a gender; `check`
    names such a translation."""
    sample = Catalog(locale="ru")
    sample.add("{name} (dealer) must change", "{name} (сдающий) должен изменить заявку.")
    sample.add("{name} won", "{name} выиграл!")
    sample.add("{name} wins", "{name} побеждает!")
    sample.add("dealer ({name}) must change", "сдающему ({name}) нужно изменить заявку.")
    sample.add("{name} (dealer) chooses", "{name} (сдающий) выбирает козырь.")
    sample.add("{name} deals", "{name} (сдаёт)")
    assert i18n.agreement_problems(sample) == [
        "'{name} (dealer) must change': '{name} (сдающий) должен изменить заявку.'",
        "'{name} won': '{name} выиграл!'",
        "'{name} (dealer) chooses': '{name} (сдающий) выбирает козырь.'",
    ]
    for language in LANGUAGES:
        assert i18n.agreement_problems(i18n.read_catalog(language)) == [], language


def test_a_role_beside_a_name_takes_no_gender() -> None:
    """A Polish participle or a Romance, Latvian or German agent noun in brackets after a name
    is a man's (`Ania (rozdający)`, `Ana (repartidor)`, `Anne (donneur)`, `Anna (Geber)`,
    `Ana (dealer)`), and so is such a noun naming a person before a colon (`primo mazziere:
    {name}`, `pirmais dalītājs: {name}`, the dealer of a game's first round): `check` names it.
    A verb there takes no gender (Latvian `Uzvarēja: {names}`, "won")."""
    samples = [
        ("pl", "wybiera {name} (rozdający)", "wybiera {name} (rozdaje)"),
        ("es", "{name} (repartidor) elige", "quien reparte ({name}) elige"),
        ("pt", "{name} (carteador) escolhe", "quem dá as cartas ({name}) escolhe"),
        ("it", "sceglie {name} (mazziere)", "sceglie chi dà le carte ({name})"),
        ("fr", "{name} (donneur) choisit", "{name}, qui distribue, choisit"),
        ("lv", "izvēlas {name} (dalītājs)", "izvēlas {name} (dala kārtis)"),
        ("de", "{name} (Geber) wählt", "{name} gibt und wählt"),
        ("ro", "alege {name} (dealer)", "alege {name} (împarte)"),
        ("it", "primo mazziere: {name}", "prima smazzata: {name}"),
        ("lv", "pirmais dalītājs: {name}", "{name} sāk dalīt kārtis"),
        ("es", "primer repartidor: {name}", "{name} reparte primero"),
        ("ro", "primul dealer: {name}", "prima împărțire: {name}"),
        ("lv", "izvēlas {name} (dalītājs)", "Uzvarēja: {name}"),
    ]
    for language, gendered, neutral in samples:
        sample = Catalog(locale=language)
        sample.add("{name} (dealer) chooses", gendered)
        sample.add("dealer ({name}) chooses", neutral)
        assert i18n.agreement_problems(sample) == [f"'{{name}} (dealer) chooses': {gendered!r}"], (
            language,
            gendered,
        )


def test_no_italian_adjective_after_a_name_takes_a_gender() -> None:
    """Italian's adjective or participle after `è`/`sono` agrees with whom it is said of:
    `{names} sono primi a pari merito` read `Anna, Bea sono primi`, a man's form for two
    women. The text names the place instead (`Primo posto a pari merito: {names}`); a
    phrase that takes no gender after `è` stays (`{name} è in vantaggio`, `è di nuovo qui`,
    `è un bot`). `check` names such a translation."""
    sample = Catalog(locale="it")
    sample.add("{names} share first place!", "{names} sono primi a pari merito!")
    sample.add("{name} is ready", "{name} è pronto.")
    sample.add("{name} leads", "{name} è in vantaggio; {name} è di nuovo qui; {name} è un bot.")
    sample.add("first place", "Primo posto a pari merito: {names}!")
    assert i18n.agreement_problems(sample) == [
        "'{names} share first place!': '{names} sono primi a pari merito!'",
        "'{name} is ready': '{name} è pronto.'",
    ]
    assert i18n.agreement_problems(i18n.read_catalog("it")) == []


def test_the_dealers_mark_takes_no_gender() -> None:
    """The table marks the dealer after their name (`Аня (сдаёт)`, `Ania (rozdaje)`); the mark
    was a participle or a noun, a man's form after every woman's name (`Аня (сдающий)`,
    `Ania (rozdający)`, `Ana (repartidor)`)."""
    for language in LANGUAGES:
        sample = Catalog(locale=language)
        sample.add("{name} (dealer)", f"{{name}} {dealer_mark(texts(language))}")
        assert i18n.agreement_problems(sample) == [], language


CHAT_WORDS = {"de": "Chat", "ko": "채팅", "ru": "чат"}
"""Each language's word for a chat, as its Telegram texts say "private chat"."""


@pytest.mark.parametrize("language", list(CHAT_WORDS))
def test_what_comes_privately_is_not_said_to_come_to_a_private_chat(language: str) -> None:
    """A hint or a review "comes to you privately" (a text of both platforms, not Telegram's
    own): on Telegram in the private chat, on
    Discord in a DM, or shown to the player alone in the channel when their DMs are closed.
    A translation that names the chat (Russian `придёт тебе в личный чат`) is wrong on
    Discord, where a player with closed DMs read it under an answer in the channel."""
    catalog = i18n.read_catalog(language)
    chat = CHAT_WORDS[language]
    wrong = [
        f"{message.id!r}: {message.string!r}"
        for message in catalog
        if isinstance(message.id, str)
        and "privately" in message.id
        and "chat" not in message.id
        and not any(path.startswith("adapters/telegram") for path, _ in message.locations)
        and chat in str(message.string)
    ]
    assert wrong == []


def test_no_korean_particle_stands_apart_from_its_word() -> None:
    """A Korean particle is written on the word it follows (`/hint를`); set apart after a
    command (`/options coach 를 설정해요`, `/hint 를 입력하세요`) it reads as a stray syllable.
    A command ending in a word whose sound the particle cannot follow surely is named as a
    command instead (`/options coach 명령으로`). `check` names such a translation."""
    sample = Catalog(locale="ko")
    sample.add("Type /hint again.", "/hint 를 입력하세요.")
    sample.add("Type /hint.", "/hint를 입력하세요. 이 힌트는 코치 명령으로 켜요.")
    assert i18n.stray_problems(sample) == [
        "a particle set apart 'Type /hint again.': '/hint 를 입력하세요.'"
    ]
    assert i18n.stray_problems(i18n.read_catalog("ko")) == []


def test_french_keeps_a_no_break_space_before_double_punctuation() -> None:
    """French sets a space before `:`, `;`, `?` and `!`, a no-break one (U+00A0), so that the
    sign never starts a line of its own (`Votre annonce\u00a0?`). A plain space there was in
    more than a hundred entries beside the no-break ones of the others; `check` names such a
    translation."""
    sample = Catalog(locale="fr")
    sample.add("Your bid?", "Votre annonce ?")
    sample.add("Points: {players}", "Points\u00a0: {players}")
    sample.add("Trick: {cards}; {name} leads", "Pli\u00a0: {cards}\u00a0; {name} mène")
    assert i18n.stray_problems(sample) == [
        "a plain space before : ; ? ! 'Your bid?': 'Votre annonce ?'"
    ]
    assert i18n.stray_problems(i18n.read_catalog("fr")) == []


def test_polish_says_a_turn_as_kolej_not_a_queue() -> None:
    """A player's turn is `kolej` in Polish (`gdy przyjdzie twoja kolej`); `kolejka` is a queue,
    and `w twojej kolejce` (the lobby's wings and coach lines) read "in your queue". `check`
    names such a translation."""
    sample = Catalog(locale="pl")
    sample.add("Wings: played on your turn.", "Skrzydła: zagra się sama w twojej kolejce.")
    sample.add("Mark a card.", "Oznacz kartę, a zagra się sama, gdy przyjdzie twoja kolej.")
    assert i18n.stray_problems(sample) == [
        "a queue (kolejka) for a turn (kolej) 'Wings: played on your turn.': "
        "'Skrzydła: zagra się sama w twojej kolejce.'"
    ]
    assert i18n.stray_problems(i18n.read_catalog("pl")) == []


def test_dutch_counts_games_as_spellen_not_the_verb_spelen() -> None:
    """Games are `spellen` in Dutch; `spelen` is the verb "to play", and after a number it
    read "1 spel, 2 play" (`{n} spelen` in /stats, `minder dan {n} spelen` under the end of
    a game). `check` names such a translation."""
    sample = Catalog(locale="nl")
    sample.add("{n} games", "{n} spelen")
    sample.add("Press to play 2 cards.", "Druk om te spelen: 2 spellen, 3 kaarten spelen.")
    assert i18n.stray_problems(sample) == [
        "the verb spelen for games (spellen) '{n} games': '{n} spelen'"
    ]
    assert i18n.stray_problems(i18n.read_catalog("nl")) == []


def test_polish_counts_take_the_case_their_number_asks() -> None:
    """Polish says 1 gracz, 2 to 4 gracze (the nominative plural), 5 to 21 graczy (the genitive),
    22 gracze; so for each counted word. `{n} players` said `3 graczy`."""
    t = texts("pl")
    counted = {
        ("{n} player", "{n} players"): ("1 gracz", "3 gracze", "12 graczy", "22 gracze"),
        ("{n} trick", "{n} tricks"): ("1 lewa", "3 lewy", "12 lew", "22 lewy"),
        ("{n} point", "{n} points"): ("1 punkt", "3 punkty", "12 punktów", "22 punkty"),
        ("{n} card", "{n} cards"): ("1 karta", "3 karty", "12 kart", "22 karty"),
        ("{n} game", "{n} games"): ("1 gra", "3 gry", "12 gier", "22 gry"),
    }
    for (one, many), said in counted.items():
        assert tuple(t.ngettext(one, many, n).format(n=n) for n in (1, 3, 12, 22)) == said


def test_no_french_text_gives_its_reader_a_gender() -> None:
    """French agrees a word said of `vous` with the reader's gender, which no text knows:
    `vous êtes le donneur` (a Wizard turned up), `pour vous seul` (a hand shown in the
    channel) and `Nouveau à Wizard ?` (/help) took a man's. `check` names such a translation."""
    sample = Catalog(locale="fr")
    sample.add("You are the dealer.", "Vous êtes le donneur.")
    sample.add("Shown to you alone.", "Montrée pour vous seul.")
    sample.add("New to Wizard?", "Nouveau à Wizard\u00a0?")
    sample.add("You deal.", "C’est vous qui distribuez, à vous seulement.")
    sample.add("Discovering Wizard?", "Vous découvrez Wizard\u00a0? Une nouvelle partie.")
    assert i18n.reader_gender_problems(sample) == [
        "'You are the dealer.': 'Vous êtes le donneur.'",
        "'Shown to you alone.': 'Montrée pour vous seul.'",
        "'New to Wizard?': 'Nouveau à Wizard\\xa0?'",
    ]
    assert i18n.reader_gender_problems(i18n.read_catalog("fr")) == []


def test_no_spanish_portuguese_or_italian_text_gives_the_reader_a_gender() -> None:
    """Spanish, Portuguese and Italian say `you are new, ready, welcome` with a word that
    takes the reader's gender (`¿Nuevo en Wizard?`, `Novo no Wizard?`, `Nuovo a Wizard?`), and
    `you are the dealer, the host` with a man's noun (`eres el repartidor`, `como carteador`,
    `sei il mazziere`); the bot does not know the reader's gender: the text says it another way
    (`¿No conoces Wizard?`, `repartes tú`). `check` names such a translation."""
    cases = {
        "es": ("¿Nuevo en Wizard? Mira /rules.", "¿No conoces Wizard? Una partida nueva."),
        "pt": ("Novo no Wizard? Veja /rules.", "Não conhece o Wizard? Nova partida. Pronto: já."),
        "it": ("Nuovo a Wizard? Vedi /rules.", "Non conosci Wizard? Nuova partita."),
    }
    roles = {  # a role said of the reader with its article: a man's noun (`el repartidor`)
        "es": ("Salió un Mago: eres el repartidor.", "Salió un Mago: repartes tú."),
        "pt": ("Saiu um Mago: como carteador, escolha.", "Saiu um Mago: você dá as cartas."),
        "it": ("È uscito un Mago: sei il mazziere.", "È uscito un Mago: dai tu le carte."),
    }
    for language, (wrong, right) in cases.items():
        role, neutral = roles[language]
        sample = Catalog(locale=language)
        sample.add("New to Wizard? See /rules.", wrong)
        sample.add("New game", right)
        sample.add("you are the dealer", role)
        sample.add("you deal", neutral)
        assert i18n.reader_gender_problems(sample) == [
            f"'New to Wizard? See /rules.': {wrong!r}",
            f"'you are the dealer': {role!r}",
        ]
        assert i18n.reader_gender_problems(i18n.read_catalog(language)) == [], language


def test_polish_declines_lewa_after_a_preposition() -> None:
    """`lewa` (a trick) declines as an adjective: after `do`, `od`, `z`, `bez` or `dla` one
    trick is `lewej` and many `lew`; `lewy` is the nominative plural (`Podpowiedź do lewy 2`
    read "a hint to tricks 2")."""
    wrong = re.compile(r"\b(?:do|od|z|ze|bez|dla)\s+lewy\b", re.IGNORECASE)
    assert [(msgid, text) for msgid, text in translations("pl") if wrong.search(text)] == []


def test_no_french_text_agrees_a_word_with_named_players() -> None:
    """After `{names} sont` a French adjective takes the players' genders, which no text
    knows (`{names} sont premiers ex æquo`, a man's plural); the text says it without one
    (`Égalité en tête\u00a0: {names}`)."""
    agreeing = re.compile(r"\{names?\},? (?:est|sont|était|étaient) (?:premi|seul|prêt|\w+ée?s?\b)")
    assert [(msgid, text) for msgid, text in translations("fr") if agreeing.search(text)] == []


def test_french_elides_with_the_typographic_apostrophe() -> None:
    """French elides with the typographic apostrophe (U+2019) in every entry but one that had
    the typewriter `'` (`pas encore d'annonce`, a seat of the web table, for a screen reader)."""
    straight = [(msgid, text) for msgid, text in translations("fr") if "'" in text]
    assert straight == []


def test_no_german_text_reads_as_the_formal_sie() -> None:
    """German speaks to a player as `du`; a `Sie` not at a sentence's start reads as the
    formal address (`Merke eine Karte vor: Sie wird automatisch gespielt`, the card meant),
    and `Ihnen` is the formal address itself. The text says it another way; `check` names
    such a translation."""
    sample = Catalog(locale="de")
    sample.add("Mark a card: it is played.", "Merke eine Karte vor: Sie wird gespielt.")
    sample.add("They play.", "Sie spielen. Dann spielt sie.")
    assert i18n.stray_problems(sample) == [
        "the formal Sie 'Mark a card: it is played.': 'Merke eine Karte vor: Sie wird gespielt.'"
    ]
    assert i18n.stray_problems(i18n.read_catalog("de")) == []


def test_template_and_catalogs_agree() -> None:
    with (i18n.LOCALE_DIR / "messages.pot").open("rb") as file:
        template = read_po(file)
    for language in LANGUAGES:
        assert i18n.missing_messages(template, i18n.read_catalog(language)) == []


def test_own_texts_are_in_every_catalog_and_translated() -> None:
    template = i18n.extract_messages()
    mine = own_msgids()
    assert "You must follow suit." in mine
    assert "Round {round} of {rounds}" in mine
    assert "{n} trick" in mine
    for language in LANGUAGES:
        catalog = i18n.read_catalog(language)
        assert set(i18n.missing_messages(template, catalog)) & mine == set(), language
        if language != DEFAULT_LANGUAGE:
            assert i18n.untranslated_messages(catalog, mine) == [], language


SAMPLE = """\
def screen(t, n, _):
    title = t("Hello {name}", name="Ann")
    # TRANSLATORS: a greeting on a button.
    button = t("Press me")
    count = t.ngettext("{n} apple", "{n} apples", n)
    other = _("Underscore text")
    plain = t.gettext("Plain text")
    dynamic = t(title)
    return title, button, count, other, plain, dynamic
"""


def sample_project(root: Path) -> None:
    (root / "bot").mkdir()
    (root / "bot" / "screen.py").write_text(SAMPLE, encoding="utf-8")


def test_extraction_finds_texts(tmp_path: Path) -> None:
    sample_project(tmp_path)
    template = i18n.extract_messages(tmp_path)
    ids = [message.id for message in template if message.id]
    assert ids == [
        "Hello {name}",
        "Press me",
        ("{n} apple", "{n} apples"),
        "Underscore text",
        "Plain text",
    ]
    assert template["Press me"].auto_comments == ["a greeting on a button."]
    assert template["Press me"].locations == [("bot/screen.py", 4)]


def test_missing_messages_reports_texts_not_in_a_catalog(tmp_path: Path) -> None:
    sample_project(tmp_path)
    template = i18n.extract_messages(tmp_path)
    catalog = Catalog(locale="de", fuzzy=False)
    catalog.add("Press me", "Drück mich")
    missing = i18n.missing_messages(template, catalog)
    assert missing == ["Hello {name}", "{n} apple", "Underscore text", "Plain text"]


def test_update_catalogs_merges_and_keeps_translations(tmp_path: Path) -> None:
    sample_project(tmp_path)
    locale_dir = tmp_path / "locale"
    written = i18n.update_catalogs(tmp_path, locale_dir, languages=["de"])
    assert set(written) == {locale_dir / "messages.pot", i18n.po_path("de", locale_dir)}
    catalog = i18n.read_catalog("de", locale_dir)
    assert i18n.untranslated_messages(catalog) == [
        "Hello {name}",
        "Press me",
        "{n} apple",
        "Underscore text",
        "Plain text",
    ]
    catalog["Press me"].string = "Drück mich"
    i18n._write_if_changed(i18n.po_path("de", locale_dir), catalog)

    assert i18n.update_catalogs(tmp_path, locale_dir, languages=["de"]) == []  # nothing new

    source = tmp_path / "bot" / "screen.py"
    source.write_text(SAMPLE.replace("Plain text", "New text"), encoding="utf-8")
    i18n.update_catalogs(tmp_path, locale_dir, languages=["de"])
    catalog = i18n.read_catalog("de", locale_dir)
    assert catalog["Press me"].string == "Drück mich"
    assert "New text" in catalog
    assert "Plain text" in catalog.obsolete
    t = Texts("de", compile_catalog(catalog))
    assert t("Press me") == "Drück mich"
    assert t("New text") == "New text"


def test_the_english_catalog_takes_no_fuzzy_match(tmp_path: Path) -> None:
    """English is the source language: its entries are empty, a plural's two empty forms too.
    A new text close to a plural's (`{n} apple pie` beside `{n} apple`) is a new empty entry,
    not one marked fuzzy as a match of that plural, which carried nothing over (Babel takes a
    plural's empty forms for a translation); German, translated, still gets its match."""
    sample_project(tmp_path)
    locale_dir = tmp_path / "locale"
    i18n.update_catalogs(tmp_path, locale_dir, languages=["en", "de"])
    german = i18n.read_catalog("de", locale_dir)
    german["{n} apple"].string = ("{n} Apfel", "{n} Äpfel")
    i18n._write_if_changed(i18n.po_path("de", locale_dir), german)
    source = tmp_path / "bot" / "screen.py"
    pie = '"{n} apple pie", "{n} apple pies"'
    source.write_text(SAMPLE.replace('"{n} apple", "{n} apples"', pie), encoding="utf-8")
    i18n.update_catalogs(tmp_path, locale_dir, languages=["en", "de"])
    english = i18n.read_catalog("en", locale_dir)
    assert [message.id for message in english if message.fuzzy] == []
    assert english["{n} apple pie"].string == ("", "")
    assert i18n.read_catalog("de", locale_dir)["{n} apple pie"].fuzzy


def test_check_names_a_fuzzy_entry_in_any_catalog(tmp_path: Path) -> None:
    """`check` names an entry marked fuzzy in every catalog, English too, whose entries are
    otherwise empty by design (a mark there reads as work left undone)."""
    locale_dir = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale_dir)
    assert i18n.check_catalogs(locale_dir=locale_dir) == []
    english = i18n.read_catalog("en", locale_dir)
    english["You must follow suit."].flags.add("fuzzy")
    i18n._write_if_changed(i18n.po_path("en", locale_dir), english)
    assert i18n.check_catalogs(locale_dir=locale_dir) == ["en: fuzzy 'You must follow suit.'"]


def test_check_names_an_entry_the_code_no_longer_marks(tmp_path: Path) -> None:
    """`check` names a catalog's entry that no text of the code is marked as (`extract` would
    make it obsolete, and a text still shown would lose its translations): a text wrapped in
    a function the extractor does not know leaves one behind."""
    locale_dir = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale_dir)
    german = i18n.read_catalog("de", locale_dir)
    german.add("Nobody says this.", "Das sagt niemand.")
    i18n._write_if_changed(i18n.po_path("de", locale_dir), german)
    assert i18n.check_catalogs(locale_dir=locale_dir) == ["de: unused 'Nobody says this.'"]


def test_check_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = i18n.main(["check"])
    out = capsys.readouterr()
    assert code in (0, 1)
    assert "problem(s)" in out.err


def test_every_text_in_the_code_is_in_the_catalogs_and_translated() -> None:
    """The real `bot/` and `adapters/` sources against the committed catalogs (read only):
    a text added to the code without a translation in every catalog fails here."""
    problems = i18n.check_catalogs()
    assert problems == [], (
        f"{len(problems)} catalog problem(s); run `python -m bot.show.i18n extract`, then fill in "
        "the de and es msgstr lines (and drop their fuzzy flags):\n  " + "\n  ".join(problems)
    )
    with (i18n.LOCALE_DIR / "messages.pot").open("rb") as file:
        template = read_po(file)
    stale = i18n.missing_messages(i18n.extract_messages(), template)
    assert stale == [], (
        f"messages.pot is out of date; run `python -m bot.show.i18n extract`: {stale}"
    )


SCORE_SHEET_LABELS = {"Rnd": 6, "Cards": 7, "w/b": 3, "pts": 3, "tot": 3}
"""Each score-sheet column label and the widest its translation may be (the player columns
`w/b`, `pts` and `tot` are 3 wide, so their labels may not be wider)."""


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "en"])
def test_the_score_sheets_rounds_column_is_headed_by_the_word_for_a_round(language: str) -> None:
    """The score sheet (the picture's rounds column, the text sheet's every layout) heads
    its rounds column with the language's word for a round, as the table says it (`Round`):
    no abbreviation a reader must guess (French `Man` for `Manche`, Latvian and Romanian the
    English `Rnd`, Korean `R`)."""
    t = texts(language)
    assert t("Rnd").casefold() == t("Round").casefold(), (language, t("Rnd"), t("Round"))


def test_the_korean_score_sheet_heads_its_cards_column_with_the_word_for_cards() -> None:
    """Korean heads the roomier sheet's cards column `카드`, the word the hand says (`내 카드`);
    `장`, the counter of `카드 3장`, is no heading alone (the narrowest sheet's `Cd`, at most 4
    letters wide, keeps it)."""
    t = texts("ko")
    assert t("Cards") == "카드"
    assert t("Cards") in t.gettext("Your hand: {cards}")


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_score_sheet_labels_stay_short(language: str) -> None:
    t = texts(language)
    for label, widest in SCORE_SHEET_LABELS.items():
        assert 0 < len(t(label)) <= widest, (language, label, t(label))


CONTEXT_SAMPLE = """\
def screen(t):
    name = t("notequal")
    word = t.pgettext("option button", "notequal")
    marked = NC_("option button", "wings")
    return name, word, marked
"""


def test_a_text_in_a_context_is_its_own_entry(tmp_path: Path) -> None:
    """The same English words marked with a context (`NC_`, `t.pgettext`) are a text of their
    own: a catalog that has them only without it lacks them, and each is translated apart."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "screen.py").write_text(CONTEXT_SAMPLE, encoding="utf-8")
    template = i18n.extract_messages(tmp_path)
    assert [(message.context, message.id) for message in template if message.id] == [
        (None, "notequal"),
        ("option button", "notequal"),
        ("option button", "wings"),
    ]
    catalog = Catalog(locale="de", fuzzy=False)
    catalog.add("notequal", "Ansagen ≠ Stiche")
    catalog.add("wings", "Flügel")
    assert i18n.missing_messages(template, catalog) == ["notequal", "wings"]
    catalog.add("notequal", "Summe ≠ Stiche", context="option button")
    catalog.add("wings", "Flügel", context="option button")
    assert i18n.missing_messages(template, catalog) == []
    t = Texts("de", compile_catalog(catalog))
    assert t("notequal") == "Ansagen ≠ Stiche"
    assert t.pgettext("option button", "notequal") == "Summe ≠ Stiche"
    assert t.pgettext("option button", "dmmixed") == "dmmixed"  # none: the English words
    assert texts("en").pgettext("option button", "notequal") == "notequal"


def translations(language: str) -> list[tuple[str, str]]:
    """Each (msgid, translated form) of a catalog, one per plural form."""
    out = []
    for message in i18n.read_catalog(language):
        if not message.id:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        out += [(msgid, form) for form in forms if form]
    return out


STRAY_TERMS: dict[str, dict[str, str]] = {
    "de": {"Ansage": r"Vorhersage|Gebot", "Gastgeber": r"\bHost|Spielleiter", "Narr": "Hofnarr"},
    "es": {
        "apuesta": r"predicci|pronóstic|\bpuja",
        "anfitrión": r"\bhost",
        "repaso": r"análisis|analiz|revisar",
    },
    "fr": {"annonce": r"\bmise\b|\bpari\b|enchère", "pli": r"levée"},
    "it": {"previsione": r"dichiara|puntat|scommess"},
    "ko": {"예측": r"입찰|베팅|비드", "방장": r"호스트"},
    "lv": {"solījums": r"likme|prognoz", "pirms spēles": r"vestibil"},
    "nl": {"bod": r"voorspel|inzet"},
    "pl": {"deklaracja": r"zakład|licytac", "gospodarz": r"\bhost"},
    "pt": {"aposta": r"palpite|\blance", "partida": r"\bjogos\b"},
    "ro": {"licitație": r"pariu|predicți"},
    "ru": {"заявка": r"ставк|прогноз", "организатор": r"хозя|ведущ|ведёшь"},
}
"""For each language, a game term as its catalog says it (the one most of its entries use) and
the other words for it a stray entry had (docs/players.md, "Twelve languages")."""


@pytest.mark.parametrize("language", sorted(STRAY_TERMS))
def test_each_game_term_is_said_one_way(language: str) -> None:
    strays = [
        (term, msgid, text)
        for msgid, text in translations(language)
        for term, stray in STRAY_TERMS[language].items()
        if re.search(stray, text, re.IGNORECASE)
    ]
    assert strays == []


def test_russian_and_polish_say_ty() -> None:
    """Russian and Polish speak to a player as "ты"/"ty", as friends at a card table do: no
    "вы" or its imperatives (Отправьте), no "Pan"/"Pani"/"Państwo"."""
    formal = {
        "ru": re.compile(r"(?<!\w)(вы|вас|вам|вами|ваш\w*)(?!\w)|\w+(ите|йте|ьте)(?!\w)", re.I),
        "pl": re.compile(r"(?<!\w)(Pan|Pani|Pana|Panu|Panem|Państw\w*)(?!\w)", re.I),
    }
    found = [
        (language, text)
        for language, pattern in formal.items()
        for _, text in translations(language)
        if pattern.search(text)
    ]
    assert found == []


def test_korean_keeps_to_the_haeyo_style() -> None:
    """Every Korean sentence ends in the polite-informal 해요체 (…요), none in the formal
    합니다체 (…니다, …니까, …십시오) or in 반말 (…해., …야.)."""
    other = re.compile(r"(니다|니까|십시오)([.?!:)]|\s|$)|[가-힣](해|야|지|어|아|자|냐)[.?!]")
    found = [text for _, text in translations("ko") if other.search(text)]
    assert found == []


def test_latvian_says_ten_as_it_says_two() -> None:
    """Latvian's plural form 0 (0, 10 to 20, 30, …) and form 2 (2 to 9, 22, …) are the same words:
    `10 punkti`, `2 punkti`; only 1, 21, 31, … (form 1) take the singular."""
    for message in i18n.read_catalog("lv"):
        if isinstance(message.id, tuple):
            zero, _, other = message.string
            assert zero == other, message.id


LOWER_CASE_NAMES = frozenset({"es", "fr", "it", "lv", "pl", "pt", "ro", "ru"})
"""The languages that write a language's name lower-case within a sentence (`русский`,
`español`); German and Dutch write it capitalised, Korean has no case."""


def test_a_language_is_named_in_a_sentence_as_it_writes_it() -> None:
    """The list of languages names each capitalised, as a list entry (`Русский`); a sentence
    (`Настройки сохранены: Русский`) named it so too, capitalised mid-sentence."""
    for code, name in LANGUAGES.items():
        expected = name.lower() if code in LOWER_CASE_NAMES else name
        assert texts(code).name_in_a_sentence == expected, code


def test_the_ai_levels_words_are_apart_in_every_language() -> None:
    """/stats takes an AI level by its word in the reader's language or in English: no two
    levels are one word in a language, nor a level's word another level's English one."""
    assert set(LEVEL_WORDS) == set(LEVELS)
    for language in LANGUAGES:
        t = texts(language)
        words = {level: level_word(t, level).casefold() for level in LEVEL_WORDS}
        assert len(set(words.values())) == len(words), language
        for level, word in words.items():
            assert typed_level(t, word) == level
            assert typed_level(t, word.replace("ё", "е")) == level  # `легкий` as typed
            assert word not in set(LEVELS) - {level}, language
