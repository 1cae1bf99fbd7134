from .tokenizer import tokenize

OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def evaluate(expr: str) -> float:
    """Evaluate a reverse-Polish expression such as '12 3 -' (= 9)."""
    stack: list[float] = []
    for tok in tokenize(expr):
        if tok in OPS:
            if len(stack) < 2:
                raise ValueError(f"operator {tok!r} needs two operands")
            a = stack.pop()
            b = stack.pop()
            stack.append(OPS[tok](a, b))
        else:
            stack.append(float(tok))
    if len(stack) != 1:
        raise ValueError(f"malformed expression: {expr!r}")
    return stack[0]
