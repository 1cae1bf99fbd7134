import pytest

from rpn import evaluate
from rpn.tokenizer import tokenize


def test_tokenize_numbers():
    assert tokenize("12 3 -") == ["12", "3", "-"]
    assert tokenize("1.5 -2 *") == ["1.5", "-2", "*"]


@pytest.mark.parametrize("expr,value", [("12 3 -", 9), ("10 4 /", 2.5), ("3 4 + 2 *", 14), ("1.5 -2 *", -3), ("100 1 - 9 /", 11)])
def test_evaluate(expr, value):
    assert evaluate(expr) == pytest.approx(value)


def test_errors():
    with pytest.raises(ValueError):
        evaluate("1 +")
    with pytest.raises(ValueError):
        evaluate("1 2")
