"""What a minion is while it is on the table: its keywords and pack attack, each with its
mechanics. The engine and the legality checks ask these functions, never a keyword's name."""

from __future__ import annotations

from collections.abc import Iterable

from .table import Minion

KEYWORDS: dict[str, str] = {
    "taunt": "enemies must attack it first",
    "charge": "may attack the turn it enters play",
    "windfury": "may attack twice a turn",
    "stealth": "cannot be attacked or targeted by the enemy until it deals damage or its "
               "controller's next turn begins",
    "focused_will": "takes 1 less damage from each source while undamaged",
}
TRIBES = {"beast", "demon"}


def guards(minion: Minion) -> bool:
    """Taunt: an attack on its side must aim at it (a minion in Stealth guards nothing)."""
    return "taunt" in minion.keywords and not minion.stealthed


def attacks_allowed(minion: Minion) -> int:
    return 2 if "windfury" in minion.keywords else 1


def ready_on_entry(minion: Minion) -> bool:
    """Charge: not exhausted the turn it enters play."""
    return "charge" in minion.keywords


def enters_stealthed(minion: Minion) -> bool:
    return "stealth" in minion.keywords


def damage_taken(minion: Minion, amount: int) -> int:
    """Focused Will: one less from each source while it is undamaged."""
    if "focused_will" in minion.keywords and not minion.damage and not minion.pending:
        return amount - 1
    return amount


def pack_bonus(minion: Minion, friends: Iterable[Minion]) -> int:
    """Pack attack: +Attack while its owner controls another Beast (not marked)."""
    ability = minion.ability
    if ability and ability.pack_attack and any(m.tribe == "beast" and m is not minion
                                               for m in friends):
        return ability.pack_attack
    return 0
