"""The client against the API's OpenAPI document: a method for every operation (in both clients),
taking every parameter the operation takes, and an iterator for every list the API pages. A new
operation fails here, by name, until `python clients/python/generate.py` is run."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import generate
import pytest
from oracle_client import AsyncOracleClient, OracleClient
from oracle_client.operations import OPERATION_IDS

CLIENT = Path(generate.__file__).parent
REGENERATE = "run `python clients/python/generate.py`"


def _operations(document):
    return [(path, method, op) for path, method, op in generate.operations(document)]


def test_every_operation_of_the_document_has_a_method_in_both_clients(document):
    missing = [f"{op['operationId']} ({method.upper()} {path}: {generate.snake(op['operationId'])})"
               for path, method, op in _operations(document)
               if not all(callable(getattr(client, generate.snake(op["operationId"]), None))
                          for client in (OracleClient, AsyncOracleClient))]
    assert not missing, f"the client lacks {', '.join(missing)}: {REGENERATE}"
    assert len(_operations(document)) == len(OPERATION_IDS) >= 34


def test_every_method_takes_what_its_operation_takes(document):
    import oracle_client.operations as operations

    lacking = []
    for _, _, op in _operations(document):
        name = generate.snake(op["operationId"])
        taken = set(inspect.signature(getattr(operations, name)).parameters)
        wanted = {p.python for p in generate.parameters_of(document, op)}
        lacking += [f"{op['operationId']}: {p}" for p in sorted(wanted - taken)]
    assert not lacking, f"parameters the client does not send: {', '.join(lacking)}: {REGENERATE}"


def _paged(op) -> bool:
    names = {parameter["name"] for parameter in op.get("parameters", [])}
    return "limit" in names and bool(names & {"offset", "cursor"})


def test_every_list_the_api_pages_has_an_iterator(document):
    paged = {op["operationId"] for _, _, op in _operations(document) if _paged(op)}
    assert paged == set(generate.PAGED), f"lists paged by the API without an iterator: {paged - set(generate.PAGED)}"
    for iterator, _ in generate.PAGED.values():
        assert inspect.isgeneratorfunction(getattr(OracleClient, iterator))
        assert inspect.isasyncgenfunction(getattr(AsyncOracleClient, iterator))


def test_methods_carry_the_documents_summary_and_description(document):
    for _, _, op in _operations(document):
        name = generate.snake(op["operationId"])
        doc = inspect.getdoc(getattr(OracleClient, name)) or ""
        assert op["summary"].rstrip(".") in doc and op.get("description", "")[:60] in " ".join(doc.split())


def test_the_first_versions_names_still_work():
    for name in ("spot", "price", "compare", "history", "events", "export", "key_usage", "iter_list",
                 "request", "get", "post"):
        assert callable(getattr(OracleClient, name)) and callable(getattr(AsyncOracleClient, name))


@pytest.mark.slow
def test_the_client_is_typed_strictly(tmp_path):
    """mypy --strict on the package: every operation's arguments and answer are typed."""
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path), "oracle_client"],
                         cwd=CLIENT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
