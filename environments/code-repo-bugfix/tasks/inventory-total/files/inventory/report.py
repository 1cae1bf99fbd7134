from typing import Iterable

from .models import Item


def total_value(items: Iterable[Item]) -> int:
    """Value of the whole stock in cents: each item's price times how many are held."""
    return sum(item.price_cents for item in items)


def format_cents(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"
