"""The refusal every campaign service raises: its own module, so services and the session code can both use it
without importing each other."""


class ServiceError(Exception):
    """A refusal with a sentence for the person who asked."""
