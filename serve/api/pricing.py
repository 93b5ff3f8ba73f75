"""Endpoints under construction: pricing."""

ROUTES: list = []
