from shop import Cart
from shop.discount import apply_percent


def make_cart():
    cart = Cart()
    cart.add("tea", 450, 2)
    cart.add("cake", 300)
    return cart


def test_apply_percent_takes_off():
    assert apply_percent(1000, 10) == 900
    assert apply_percent(999, 50) == 499
    assert apply_percent(1000, 0) == 1000


def test_coupon_exact_code():
    cart = make_cart()
    cart.use_coupon("SAVE10")
    assert cart.total() == 1080


def test_coupon_any_case_and_spaces():
    cart = make_cart()
    cart.use_coupon("  half ")
    assert cart.total() == 600


def test_unknown_coupon_changes_nothing():
    cart = make_cart()
    cart.use_coupon("NOPE")
    assert cart.total() == 1200
