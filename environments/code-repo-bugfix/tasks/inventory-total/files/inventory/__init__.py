"""A tiny stock-keeping package: items with prices in cents and reports over them."""
from .models import Item
from .report import total_value

__all__ = ["Item", "total_value"]
