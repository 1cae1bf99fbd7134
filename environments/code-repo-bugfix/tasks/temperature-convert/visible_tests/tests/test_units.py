from units import convert


def test_celsius_to_fahrenheit():
    assert convert("100C", "F") == 212.0


def test_kelvin():
    assert convert("0C", "K") == 273.15
