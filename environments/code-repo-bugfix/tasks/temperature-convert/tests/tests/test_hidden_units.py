import pytest

from units import convert
from units.parse import parse_reading


@pytest.mark.parametrize("text,expected", [("98.6F", (98.6, "F")), ("-40 °C", (-40.0, "C")), ("273.15K", (273.15, "K")), ("0.5c", (0.5, "C"))])
def test_parse_decimals(text, expected):
    assert parse_reading(text) == expected


@pytest.mark.parametrize("reading,unit,value", [("98.6F", "C", 37.0), ("32F", "C", 0.0), ("212F", "K", 373.15), ("-40F", "C", -40.0), ("100C", "F", 212.0)])
def test_convert(reading, unit, value):
    assert convert(reading, unit) == pytest.approx(value, abs=0.01)


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_reading("warm")
