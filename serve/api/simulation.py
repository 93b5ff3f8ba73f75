"""Endpoints under construction: simulation."""

ROUTES: list = []
