from inventory import Item, total_value
from inventory.report import format_cents


def test_format_cents():
    assert format_cents(1230) == "12.30"
    assert format_cents(5) == "0.05"


def test_empty_inventory_is_worth_nothing():
    assert total_value([]) == 0


def test_price_parsing():
    assert Item.from_dict({"sku": "A1", "name": "pen", "price": "12.30"}).price_cents == 1230
