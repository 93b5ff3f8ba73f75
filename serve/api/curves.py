"""Endpoints under construction: curves."""

ROUTES: list = []
