import pytest

from inventory import Item, total_value
from inventory.report import format_cents


@pytest.mark.parametrize("price,cents", [("12.30", 1230), ("0.29", 29), ("19.99", 1999), ("4.35", 435), ("7", 700)])
def test_price_parsing_is_exact(price, cents):
    assert Item.from_dict({"sku": "X", "name": "x", "price": price}).price_cents == cents


def test_total_counts_quantity():
    items = [Item("A1", "pen", 1230, 3), Item("B2", "pad", 199, 2)]
    assert total_value(items) == 3 * 1230 + 2 * 199


def test_total_of_parsed_rows():
    rows = [{"sku": "A1", "name": "pen", "price": "12.30", "quantity": "3"}, {"sku": "C3", "name": "ink", "price": "0.29", "quantity": "10"}]
    assert format_cents(total_value(Item.from_dict(r) for r in rows)) == "39.80"
