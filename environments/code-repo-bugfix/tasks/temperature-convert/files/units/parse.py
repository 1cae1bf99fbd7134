import re

_READING = re.compile(r"^\s*(-?\d+)\s*°?\s*([CFK])\s*$", re.IGNORECASE)


def parse_reading(text: str) -> tuple[float, str]:
    """'98.6F' -> (98.6, 'F'); '-40 °C' -> (-40.0, 'C'). Raises ValueError on anything else."""
    m = _READING.match(text)
    if not m:
        raise ValueError(f"not a temperature reading: {text!r}")
    return float(m.group(1)), m.group(2).upper()
