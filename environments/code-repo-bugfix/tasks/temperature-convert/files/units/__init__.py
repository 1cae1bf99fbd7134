from .convert import convert

__all__ = ["convert"]
