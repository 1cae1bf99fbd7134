import re

from .normalize import strip_accents


def slugify(text: str, sep: str = "-") -> str:
    """A URL slug: ASCII lower-case words joined by `sep`, no separator at either end."""
    text = strip_accents(text).lower()
    return re.sub(r"[^a-z0-9]", sep, text)
