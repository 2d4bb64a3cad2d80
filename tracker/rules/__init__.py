"""The Hearthtop rules: the event log, the engine that keeps the score, and hero files.

Nothing here knows of pixels. From the bottom up:

- `cards`: what a card is in Hearthtop (cost, stats, minion or spell); players, tokens.
- `events`: the event log's types (pydantic), read and written as JSON Lines.
- `alerts`: the stable alert codes an event can raise.
- `abilities`: what a hero file holds (abilities, effects, `HOOKS`) as values.
- `table`: the physical table: where each of the 53 cards lies; minions, weapons, sides.
- `board`: `Board`, what the rules' vocabulary may read of a game and do to it.
- `selectors`, `keywords`, `effects`, `secrets`: the vocabulary of the hero files
  (selectors and conditions, keywords, effect words, secret triggers), each name
  implemented once beside its mechanics.
- `heroes`: hero files loaded and checked against that vocabulary.
- `legality`: the rules an event must follow, and the moves they allow (for the bot, and
  every way to play a card or use the hero power, for people).
- `state`: the game state of the contract (pydantic).
- `narrate`: words for people: events, alert phrases, the board.
- `engine`: `Game`, which applies events, undoes them and shows its state.
- `intent`: what a targeted card means to do (the bot plays so; the camera's likelier
  explanation).
- `bot`: whole random legal games, for tests, benchmarks and the demo.

The names below are this room's front door: what the server uses of it.
"""

from .alerts import Alert
from .cards import PLAYERS, card_cost, other, parse_card
from .engine import EngineError, Game
from .events import (
    MAX_LOG_BYTES,
    Attack,
    Concede,
    EndTurn,
    Event,
    LogError,
    NewGame,
    Play,
    Player,
    dump_log,
    iter_log,
    parse_event,
    read_log,
)
from .heroes import HeroError, all_heroes, get_hero, hero_names
from .legality import card_plays, characters, power_uses, reactions
from .narrate import describe_event, face_down_words, minion_names, outcome
from .secrets import answers, due_secrets, reveal_before_last, when_due
from .state import GameState
from .table import HERO_POWER_COST

__all__ = [
    "HERO_POWER_COST",
    "MAX_LOG_BYTES",
    "PLAYERS",
    "Alert",
    "Attack",
    "Concede",
    "EndTurn",
    "EngineError",
    "Event",
    "Game",
    "GameState",
    "HeroError",
    "LogError",
    "NewGame",
    "Play",
    "Player",
    "all_heroes",
    "answers",
    "card_cost",
    "card_plays",
    "characters",
    "describe_event",
    "due_secrets",
    "dump_log",
    "face_down_words",
    "get_hero",
    "hero_names",
    "iter_log",
    "minion_names",
    "other",
    "outcome",
    "parse_card",
    "parse_event",
    "power_uses",
    "reactions",
    "read_log",
    "reveal_before_last",
    "when_due",
]
