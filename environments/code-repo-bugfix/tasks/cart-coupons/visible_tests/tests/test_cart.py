from shop import Cart


def test_subtotal():
    cart = Cart()
    cart.add("tea", 450, 2)
    cart.add("cake", 300)
    assert cart.subtotal() == 1200
    assert cart.total() == 1200
