"""Why a run failed, in the words of the step that failed, for the API's record and the webhook.

Dagster's own summary of a failed run names the steps ("Steps failed: [...]") or nothing ("An
exception was thrown during execution."). The cause is further in: a blocking check's evaluation
(its name, what it checks, its first problem), or the first error in the chain that is not
Dagster's own wrapper (a source's missing file, an unwritable warehouse). A run's link is the
Dagster UI's page of the run when the UI's address is known (`AlertSettings.ui_url`), else its id.
"""

from __future__ import annotations

from collections.abc import Iterable

from dagster import AssetCheckSeverity, DagsterEventType, DagsterInstance, Failure

from assets.checks import CHECKS
from assets.whole_day import REFUSED


def refused(error: BaseException | None) -> bool:
    """A step that refused to publish by design (`assets.whole_day.refusal`)."""
    return isinstance(error, Failure) and REFUSED in (error.metadata or {})


def run_link(run_id: str, ui_url: str) -> str:
    return f"{ui_url.rstrip('/')}/runs/{run_id}" if ui_url else run_id


def first_line(text: str) -> str:
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")


def _check_descriptions() -> dict[str, str]:
    return {spec.name: spec.description or "" for check in CHECKS for spec in check.check_specs}


def failed_checks(instance: DagsterInstance, run_id: str, step: str | None = None) -> list[str]:
    """Each check of the run (of `step`, when given) that failed at ERROR severity: its asset,
    its name, what it checks and its first problem."""
    described = _check_descriptions()
    causes = []
    for record in instance.all_logs(run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION):
        event = record.dagster_event
        evaluation = event.event_specific_data
        if evaluation.passed or evaluation.severity != AssetCheckSeverity.ERROR or step not in (None, event.step_key):
            continue
        problems = evaluation.metadata.get("first_problems")
        problem = first_line(problems.value) if problems is not None else evaluation.description or ""
        what = described.get(evaluation.check_name, "").rstrip(".")
        causes.append(f"check {evaluation.check_name} of {evaluation.asset_key.to_user_string()} failed"
                      + (f" ({what})" if what else "") + (f": {problem}" if problem else ""))
    return causes


def _own_error(error: BaseException) -> BaseException:
    """The first error in the chain that is not a wrapper of Dagster's."""
    while type(error).__module__.startswith("dagster") and error.__cause__ is not None:
        error = error.__cause__
    return error


def cause_of_step(step: str, error: BaseException | None, instance: DagsterInstance, run_id: str) -> str:
    """Why `step` failed, from its exception as the failure hook holds it."""
    checks = failed_checks(instance, run_id, step)
    if checks:
        return "; ".join(checks)
    if isinstance(error, Failure) and error.description:
        return f"{step} failed: {first_line(error.description)}"
    own = _own_error(error) if error is not None else None
    return f"{step} failed: " + ((first_line(own) or type(own).__name__) if own is not None else "no error given")


def serialized_own_error(error) -> str:
    """The first line of the first error of a serialised chain that is not a wrapper of Dagster's."""
    while error.cls_name and error.cls_name.startswith("Dagster") and error.cause is not None:
        error = error.cause
    return first_line(error.message)


def causes_of_run(instance: DagsterInstance, run_id: str, run_error=None) -> tuple[list[str], bool]:
    """Why the run failed, step by step (its failed checks, then each other failed step's own
    error; or the run's own error when no step failed), and whether every failure was a refusal to
    publish by design."""
    checks = failed_checks(instance, run_id)
    steps, refusals = [], 0
    for record in instance.all_logs(run_id, of_type=DagsterEventType.STEP_FAILURE):
        event = record.dagster_event
        data = event.event_specific_data
        user = data.user_failure_data
        if user is not None and REFUSED in (user.metadata or {}):
            refusals += 1
            steps.append(f"{event.step_key} published nothing: {first_line(user.description or '')}")
        elif user is not None and user.description:
            steps.append(f"{event.step_key} failed: {first_line(user.description)}")
        elif data.error is not None and data.error.cls_name != "DagsterAssetCheckFailedError":
            steps.append(f"{event.step_key} failed: {serialized_own_error(data.error)}")
    causes = checks + steps
    if not causes and run_error is not None:
        causes = [serialized_own_error(run_error)]
    return causes, bool(refusals) and refusals == len(steps) and not checks


def joined(causes: Iterable[str]) -> str:
    return "; ".join(causes)
