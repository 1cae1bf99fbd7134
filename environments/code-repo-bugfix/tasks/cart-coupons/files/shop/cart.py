from .discount import apply_percent, coupon_percent


class Cart:
    def __init__(self) -> None:
        self.lines: list[tuple[str, int, int]] = []
        self.coupon: str | None = None

    def add(self, name: str, price_cents: int, quantity: int = 1) -> None:
        self.lines.append((name, price_cents, quantity))

    def use_coupon(self, code: str) -> None:
        # Customers type codes in any case and with stray spaces.
        self.coupon = code

    def subtotal(self) -> int:
        return sum(price * qty for _, price, qty in self.lines)

    def total(self) -> int:
        if self.coupon is None:
            return self.subtotal()
        return apply_percent(self.subtotal(), coupon_percent(self.coupon))
