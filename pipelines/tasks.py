"""The published table of task types: the token profile of one request of each kind.

These are the oracle's reference profiles, stated so that a swap, a Monte Carlo run or a budget
simulation on `coding` means the same thing everywhere; they are conventions chosen to be
typical, not measurements, and a client who knows its own workload passes an explicit profile.

Thinking tokens: the `reasoning` and `agentic` profiles count some (conventions too); the others
count none, because no published measure of what a reasoning model spends thinking on a chat
turn, a coding edit or an answer from retrieved passages is known to the oracle (the published
counts are for benchmark questions, and vary tenfold between models). Each task type says so
(`thinking`), and so does every comparison row of a reasoning model priced with none: its cost
is a floor.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from pipelines.pricing import NO_EXTRAS, Usage


@dataclass(frozen=True)
class Profile:
    """One request's tokens: prompt, output, cache-hit share of the prompt, thinking; and what
    else it uses that a provider bills (cache writes, citations, requests, tool calls)."""

    n_in: float
    n_out: float
    eta: float = 0.0
    n_think: float = 0.0
    _: KW_ONLY
    usage: Usage = NO_EXTRAS

    @property
    def tokens(self) -> float:
        """What the request occupies of a context window."""
        return self.n_in + self.n_think + self.n_out

    @property
    def args(self) -> tuple[float, float, float, float]:
        """(n_in, n_out, eta, n_think), the argument order of `pipelines.pricing`."""
        return self.n_in, self.n_out, self.eta, self.n_think

    def as_dict(self) -> dict[str, float]:
        """The four token fields by name (a task type's description is not one of them)."""
        return {"n_in": self.n_in, "n_out": self.n_out, "eta": self.eta, "n_think": self.n_think}


@dataclass(frozen=True)
class TaskProfile(Profile):
    """A published task type: a profile with a sentence saying what it stands for."""

    description: str = ""


def _task(n_in: float, n_out: float, eta: float, n_think: float, description: str) -> TaskProfile:
    return TaskProfile(n_in, n_out, eta, n_think, description=description)


TASK_TYPES: dict[str, TaskProfile] = {
    "chat": _task(1_500, 400, 0.3, 0, "a conversational turn with some history"),
    "coding": _task(8_000, 1_200, 0.5, 0, "an edit with files in context, half of them cached"),
    "reasoning": _task(2_000, 1_000, 0.1, 6_000, "a hard question answered after long thinking"),
    "rag": _task(12_000, 500, 0.4, 0, "an answer grounded in retrieved passages"),
    "summarization": _task(10_000, 600, 0.0, 0, "a long document condensed"),
    "extraction": _task(4_000, 300, 0.2, 0, "structured fields pulled from a document"),
    "agentic": _task(30_000, 1_500, 0.7, 2_000, "a tool-using step with a long, mostly cached context"),
}


NO_THINKING_WORDS = ("counts no thinking tokens: a reasoning model spends some on every request, and no published "
               "measure of how many for this kind of request is known, so its cost here is a floor; send n_think "
               "to price your own")


def thinking_words(profile: Profile) -> str:
    """What a task type's thinking tokens stand for, in words."""
    if profile.n_think > 0:
        return (f"counts {profile.n_think:,.0f} thinking tokens, billed at a reasoning model's reasoning rate "
                "(a convention, not a measurement)")
    return NO_THINKING_WORDS


def task_profile(name: str) -> TaskProfile:
    """The profile of a task type (case-insensitive); KeyError lists the valid names."""
    try:
        return TASK_TYPES[name.strip().lower()]
    except KeyError:
        raise KeyError(f"unknown task type '{name}'; valid: {', '.join(TASK_TYPES)}") from None


def task_table() -> list[dict]:
    return [{"task_type": name, **profile.as_dict(), "description": profile.description,
             "thinking": thinking_words(profile)} for name, profile in TASK_TYPES.items()]
