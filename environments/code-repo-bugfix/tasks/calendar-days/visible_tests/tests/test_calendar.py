from calendar_utils import is_leap


def test_ordinary_leap_years():
    assert is_leap(2024)
    assert not is_leap(2023)


def test_month_out_of_range():
    import pytest

    from calendar_utils import days_in_month

    with pytest.raises(ValueError):
        days_in_month(2024, 13)
