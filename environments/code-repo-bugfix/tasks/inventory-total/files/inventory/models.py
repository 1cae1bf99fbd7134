from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    price_cents: int
    quantity: int

    @classmethod
    def from_dict(cls, row: dict) -> "Item":
        """Build an item from a CSV-like row; price is a decimal string such as '12.30'."""
        return cls(
            sku=row["sku"],
            name=row["name"],
            price_cents=int(float(row["price"]) * 100),
            quantity=int(row.get("quantity", 1)),
        )
