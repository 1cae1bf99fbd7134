from .evaluator import evaluate

__all__ = ["evaluate"]
