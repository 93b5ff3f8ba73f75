"""The console of a run the daemon or the UI launches: one line per event, and for a failure its
own cause in place of the stack traces Dagster's console logger prints (about 20 lines a failed
step, 40 a failed run). The traces stay in the run's event log, which the UI shows; so do the
"Dependencies for step ... Not executing." lines, one per step downstream of a failure (about 35
a failed refresh), which say nothing the failure's own line has not.

It is the code location's `console` logger (`assets.definitions`), with the same `log_level`
setting as Dagster's, so `CONSOLE_AT_INFO` and `oracle refresh`'s `QUIET` configure it alike.
"""

from __future__ import annotations

import logging
import sys

from dagster import Field, InitLoggerContext, logger

from assets.causes import first_line, serialized_own_error


def _error_of(event) -> object | None:
    """The serialised error a failure event carries (a step's, or the run's), if any."""
    data = getattr(event, "event_specific_data", None)
    return getattr(data, "error", None)


class OneLine(logging.Formatter):
    """An event's first line; for a failure, then its first error that is not Dagster's wrapper."""

    def format(self, record: logging.LogRecord) -> str:
        head = first_line(record.getMessage())
        error = _error_of(getattr(record, "dagster_event", None))
        cause = serialized_own_error(error) if error is not None else ""
        line = f"{head} {cause}" if cause and cause not in head else head
        return f"{self.formatTime(record)} - dagster - {record.levelname} - {line}"


def _not_a_consequence(record: logging.LogRecord) -> bool:
    """False for Dagster's line about a step skipped because a step upstream failed."""
    return getattr(record, "dagster_event", None) is not None or not record.getMessage().endswith("Not executing.")


@logger(config_schema={"log_level": Field(str, default_value="INFO", is_required=False)},
        description="One line per event on stderr; a failure's cause in place of its stack traces.")
def one_line_console(init_context: InitLoggerContext) -> logging.Logger:
    level = logging.getLevelName(str(init_context.logger_config["log_level"]).upper())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    handler.addFilter(_not_a_consequence)
    console = logging.Logger("oracle.run", level=level if isinstance(level, int) else logging.INFO)
    console.addHandler(handler)
    return console
