from .days import day_of_year, days_in_month
from .leap import is_leap

__all__ = ["day_of_year", "days_in_month", "is_leap"]
