from slugkit import slugify


def test_simple():
    assert slugify("hello") == "hello"
