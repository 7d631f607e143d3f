"""groundwatch: reference-free monitoring of RAG assistants in production."""

__all__ = ["__version__"]

__version__ = "0.1.0"
