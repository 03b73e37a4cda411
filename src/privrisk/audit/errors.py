"""The one error of ``privrisk audit``: bad input, naming the file, column or argument it is about."""

from __future__ import annotations


class AuditInputError(ValueError):
    """An input the audit cannot be made from.

    ``where`` names what is wrong as the user wrote it: ``scores.csv: column 'member'``, or an
    argument such as ``--confidence``; ``message`` says what and what is expected. The command
    prints ``privrisk audit: error: <where>: <message>`` on one line and exits with status 2.
    """

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


def flag(argument: str) -> str:
    """The command-line flag of a keyword argument (``sample_rate`` → ``--sample-rate``)."""
    return "--" + argument.replace("_", "-")
