def tokenize(expr: str) -> list[str]:
    """'12 3 -' -> ['12', '3', '-']: numbers (with an optional sign and decimals) and operators."""
    tokens: list[str] = []
    for ch in expr:
        if ch.isspace():
            continue
        tokens.append(ch)
    return tokens
