from .parse import parse_reading


def to_celsius(value: float, unit: str) -> float:
    if unit == "C":
        return value
    if unit == "F":
        return value - 32 * 5 / 9
    if unit == "K":
        return value - 273.15
    raise ValueError(f"unknown unit {unit!r}")


def from_celsius(value: float, unit: str) -> float:
    if unit == "C":
        return value
    if unit == "F":
        return value * 9 / 5 + 32
    if unit == "K":
        return value + 273.15
    raise ValueError(f"unknown unit {unit!r}")


def convert(reading: str, unit: str) -> float:
    """Convert a reading such as '98.6F' to `unit` (C, F or K), rounded to 2 decimals."""
    value, source = parse_reading(reading)
    return round(from_celsius(to_celsius(value, source), unit.upper()), 2)
