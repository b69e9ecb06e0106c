"""What a legal action would cost and pay, and how it would change its player's score: the preview
a client shows beside each action, so that none computes a payment itself.

Computed with the rules' own prices and conditions from what the player may see: an operation's
strategy reward and bonus cards follow from the player's own card and record, and going to the
casino gives what the die decides rather than a roll (its outcome is drawn only when it is played).
While a player declares its turn's two actions, ``declare_outlook`` says what each action kind
could do now, so that a client can guide the declaration without knowing the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import actions as A
from .components import (
    ACTION_KINDS,
    BONUSES,
    CASINO_LOSS,
    CASINO_TAKE,
    LEVEL_UP_GOLD,
    OTHERS_SHOP_FEE,
    RESOURCES,
    SHOPS,
    STRATEGY_REWARD,
)
from .rules import (
    acquire_price,
    bonus_condition,
    cost_of,
    declared_now,
    goal_met,
    operations,
    sale_income,
)
from .scoring import level_of, score, score_of
from .state import OreganoState, Shop

# The operations after which goals and bonus cards are checked (a start shop is not one).
OPERATION_TYPES = (A.BUILD, A.LEVEL_UP, A.TAKE_RESOURCES, A.SELL, A.ACQUIRE)


@dataclass(frozen=True, slots=True)
class Casino:
    """Going to the casino: the gold a loss costs, and by seat what a win takes from each other player."""

    loss: int
    win_takes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Preview:
    cost: tuple[int, ...]  # gold, then each resource of RESOURCES, that the player pays
    earnings: tuple[int, ...]  # by seat: the gold each receives
    resources: tuple[int, ...]  # by RESOURCES: the cards the player takes
    score_change: int  # of the player's score (scoring.score)
    achieves_strategy: bool = False
    bonuses: tuple[str, ...] = ()  # the bonus cards it takes
    casino: Casino | None = None


def preview(state: OreganoState, seat: int, action: A.OreganoAction) -> Preview:
    """What legal ``action`` of ``seat`` costs, pays and changes in its score."""
    n = state.players
    nothing = Preview((0,) * (1 + len(RESOURCES)), (0,) * n, (0,) * len(RESOURCES), 0)
    if action.type == A.CASINO:
        if not action.go:
            return nothing
        takes = tuple(0 if other == seat else min(CASINO_TAKE, state.gold[other]) for other in range(n))
        return Preview(
            nothing.cost, nothing.earnings, nothing.resources, 0, casino=Casino(CASINO_LOSS, takes)
        )
    if action.type != A.CHOOSE_START_SHOP and action.type not in OPERATION_TYPES:
        return nothing
    area = dict(state.areas[seat])
    record = state.records[seat]
    cost: dict[str, int] = {}
    earnings = [0] * n
    taken = dict.fromkeys(RESOURCES, 0)
    if action.type in (A.CHOOSE_START_SHOP, A.BUILD):
        assert action.shop is not None and action.cell is not None
        area[action.cell] = Shop(-1, action.shop)
        if action.type == A.BUILD:
            cost = cost_of(action.shop)
            record = {**record, "built": [*record["built"], action.shop]}
    elif action.type == A.LEVEL_UP:
        assert action.source is not None and action.target is not None
        shop = area.pop(action.source)
        area[action.target] = shop
        cost = cost_of(shop.kind, LEVEL_UP_GOLD[level_of(action.source)])
        record = {**record, "levelled": [*record["levelled"], shop.id]}
    elif action.type == A.TAKE_RESOURCES:
        assert action.owner is not None and action.cell is not None
        resource = SHOPS[state.areas[action.owner][action.cell].kind].produces
        assert resource is not None
        taken[resource] = min(level_of(action.cell), state.supply[resource])
        if action.owner != seat:
            cost = {"gold": OTHERS_SHOP_FEE}
            earnings[action.owner] += OTHERS_SHOP_FEE
            record = {**record, "taken": [*record["taken"], resource]}
    elif action.type == A.SELL:
        assert action.cell is not None
        kind = area.pop(action.cell).kind
        earnings[seat] += sale_income(state, seat, kind, level_of(action.cell))
        record = {**record, "sold": record["sold"] + 1}
    else:  # acquire
        assert action.shop is not None and action.level is not None and action.cell is not None
        area[action.cell] = Shop(-1, action.shop)
        cost = {"gold": acquire_price(action.shop, action.level)}
        record = {**record, "acquired": record["acquired"] + 1}
    achieved = False
    bonuses: tuple[str, ...] = ()
    if action.type in OPERATION_TYPES:
        card = state.strategies[seat]
        achieved = card is not None and goal_met(card, record)
        if achieved:
            earnings[seat] += STRATEGY_REWARD
        available = state.bonus_available
        bonuses = tuple(b for b in BONUSES if b in available and bonus_condition(area, b, achieved))
    gold = state.gold[seat] - cost.get("gold", 0) + earnings[seat]
    after = score_of(gold, area, len(state.bonuses[seat]) + len(bonuses))
    return Preview(
        cost=(cost.get("gold", 0), *(cost.get(resource, 0) for resource in RESOURCES)),
        earnings=tuple(earnings),
        resources=tuple(taken[resource] for resource in RESOURCES),
        score_change=after - score(state, seat),
        achieves_strategy=achieved,
        bonuses=bonuses,
    )


@dataclass(frozen=True, slots=True)
class Outlook:
    """What an action kind would let a player do if it performed it now."""

    kind: str
    operations: int  # the operations it could choose from (skipping is not one)
    best: A.OreganoAction | None  # the one that raises its score the most; None when there is none
    preview: Preview | None  # the best one's preview


def declare_outlook(state: OreganoState, seat: int) -> tuple[Outlook, ...]:
    """While ``seat`` declares its turn's actions: for each action kind, in the order of
    ACTION_KINDS, the operations it could perform as its first action, and the best of them: the
    greatest score change, then the most resource cards taken; the first of equal ones."""
    outlook = []
    for kind in ACTION_KINDS:
        now = declared_now(state, kind)
        shown = [(action, preview(now, seat, action)) for action in operations(now, seat)]
        best = max(shown, key=lambda item: (item[1].score_change, sum(item[1].resources)), default=None)
        outlook.append(Outlook(kind, len(shown), *(best or (None, None))))
    return tuple(outlook)
