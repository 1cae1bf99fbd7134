# Coupon codes and the percentage they take off. Codes are stored upper-case.
COUPONS = {"SAVE10": 10, "HALF": 50, "WELCOME5": 5}


def coupon_percent(code: str) -> int:
    """Percentage off for a coupon code, 0 when the code is unknown."""
    return COUPONS.get(code, 0)


def apply_percent(amount_cents: int, percent: int) -> int:
    """Amount after taking `percent` off, rounded down to a whole cent."""
    return amount_cents * percent // 100
