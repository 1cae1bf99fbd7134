import pytest

from slugkit import slugify
from slugkit.normalize import strip_accents


@pytest.mark.parametrize("text,slug", [("Hello World", "hello-world"), ("  Crème Brûlée! ", "creme-brulee"), ("a -- b", "a-b"), ("Ünïcödé 2024", "unicode-2024"), ("!!!", "")])
def test_slugify(text, slug):
    assert slugify(text) == slug


def test_custom_separator():
    assert slugify("Déjà vu, again", sep="_") == "deja_vu_again"


def test_strip_accents_keeps_letters():
    assert strip_accents("Crème Brûlée") == "Creme Brulee"


def test_strip_accents_keeps_all_of_ascii_and_nothing_beyond():
    # The edges of ASCII: DEL (127) is kept, U+0080 (128) dropped.
    assert strip_accents("a\x7fb\x80c") == "a\x7fbc"
