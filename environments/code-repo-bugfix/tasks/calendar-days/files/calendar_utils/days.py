from .leap import is_leap

# Days in each month of a common year, January first.
MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def days_in_month(year: int, month: int) -> int:
    """Days in `month` (1 = January … 12 = December) of `year`."""
    if not 1 <= month <= 12:
        raise ValueError(f"month must be 1..12, got {month}")
    if month == 2 and is_leap(year):
        return 29
    return MONTH_DAYS[month]


def day_of_year(year: int, month: int, day: int) -> int:
    """1 for January 1st, up to 365 or 366 for December 31st."""
    return sum(days_in_month(year, m) for m in range(1, month)) + day
