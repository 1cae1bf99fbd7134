import pytest

from calendar_utils import day_of_year, days_in_month, is_leap


@pytest.mark.parametrize("year,leap", [(1900, False), (2100, False), (2000, True), (2400, True), (2024, True), (2023, False)])
def test_is_leap_centuries(year, leap):
    assert is_leap(year) is leap


@pytest.mark.parametrize("month,days", [(1, 31), (2, 28), (3, 31), (4, 30), (6, 30), (9, 30), (11, 30), (12, 31)])
def test_days_in_month_common_year(month, days):
    assert days_in_month(2023, month) == days


def test_february_of_century_years():
    assert days_in_month(1900, 2) == 28
    assert days_in_month(2000, 2) == 29


def test_day_of_year():
    assert day_of_year(2023, 12, 31) == 365
    assert day_of_year(2024, 12, 31) == 366
    assert day_of_year(1900, 3, 1) == 60
