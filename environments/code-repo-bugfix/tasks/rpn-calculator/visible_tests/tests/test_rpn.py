from rpn import evaluate


def test_single_digit_addition():
    assert evaluate("1 2 +") == 3
    assert evaluate("2 3 *") == 6
