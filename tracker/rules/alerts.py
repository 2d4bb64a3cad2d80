"""Alerts: what the engine says about an event that breaks a rule or disagrees with the table.

Codes are stable (the phone, the overlay and other tools key on them); messages are for
players. `illegal` means a rule was broken; `warning` means the table and the rules disagree;
`unsure` is a rule break the camera read and no person confirmed (an `unsure` event): it is
asked, not flagged, since a misread card looks just like a broken rule.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ILLEGAL = "illegal"
WARNING = "warning"
UNSURE = "unsure"

CODES: dict[str, tuple[str, str]] = {
    # code: (severity, what it means)
    "not_enough_mana": (ILLEGAL, "a card or hero power cost more mana than was available"),
    "board_full": (ILLEGAL, "a sixth minion, or a summon-only effect with five minions"),
    "out_of_turn": (ILLEGAL, "a player acted during the other player's turn"),
    "card_in_play": (ILLEGAL, "a card played while it is already on the table"),
    "card_in_discard": (ILLEGAL, "a card played while it lies in the discard pile"),
    "card_not_in_hand": (ILLEGAL, "a card played that is known to be elsewhere"),
    "card_accounted_for": (ILLEGAL, "a card played whose rank's four cards are all elsewhere "
                                    "(some told by rank alone)"),
    "hero_power_used": (ILLEGAL, "a second hero power in one turn"),
    "attacker_exhausted": (ILLEGAL, "a minion attacked the turn it entered play"),
    "attacker_frozen": (ILLEGAL, "a frozen character attacked"),
    "already_attacked": (ILLEGAL, "a character attacked more often than it may this turn"),
    "no_attack": (ILLEGAL, "a minion with 0 Attack attacked"),
    "no_weapon": (ILLEGAL, "a hero attacked with no weapon and no Attack"),
    "taunt": (ILLEGAL, "an attack went past a minion with Taunt"),
    "target_stealthed": (ILLEGAL, "an enemy minion in Stealth was attacked or targeted"),
    "invalid_target": (ILLEGAL, "a target that the card or attack does not allow"),
    "missing_target": (ILLEGAL, "a card or hero power that needs a target was given none"),
    "target_not_found": (ILLEGAL, "a target or attacker that is not on the table"),
    "missing_choice": (ILLEGAL, "a Choose One card played without a choice"),
    "no_combo": (ILLEGAL, "a Combo target given with no card played earlier this turn"),
    "totems_complete": (ILLEGAL, "Totemic Call with all four totems in play"),
    "not_a_secret": (ILLEGAL, "a revealed card that is not one of the player's secrets"),
    "secret_on_own_turn": (ILLEGAL, "a secret revealed during its owner's turn"),
    "mulligan_closed": (ILLEGAL, "a mulligan after play began, or a second one"),
    "mulligan_too_many": (ILLEGAL, "a mulligan of more cards than the hand holds"),
    "game_over": (ILLEGAL, "an event after the game ended"),
    "armor_over_cap": (ILLEGAL, "the table shows more than 5 armor"),
    "marker_mismatch": (WARNING, "the table's marker count differs from the rules' count"),
}


class Alert(BaseModel):
    """What an event broke: a stable `code`, its severity, the event's index (0-based line
    of the log) and a sentence for players."""

    model_config = ConfigDict(frozen=True)
    code: str
    severity: Literal["illegal", "warning", "unsure"]
    event: int
    message: str


def make_alert(code: str, event: int, message: str, *, unsure: bool = False) -> Alert:
    """The alert `code` raised by event number `event`; an `unsure` event's rule break is
    asked about rather than flagged."""
    severity, _ = CODES[code]
    if unsure and severity == ILLEGAL:
        severity = UNSURE
    return Alert(code=code, severity=severity, event=event, message=message)
