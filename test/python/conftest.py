"""Shared by the tests of the Python files the product ships (run by scripts/test-python.sh)."""
import importlib.util
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_module(name, path):
    """Imports a shipped Python file as a module (its main() stays behind a __name__ guard)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
