import unicodedata


def strip_accents(text: str) -> str:
    """'Crème' -> 'Creme': split letters from their accents, then drop the accents."""
    decomposed = unicodedata.normalize("NFC", text)
    return "".join(ch for ch in decomposed if ord(ch) < 128)
