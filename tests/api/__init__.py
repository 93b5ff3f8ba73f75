"""API tests against a real snapshot; a package so their module names never clash with tests/unit."""
