"""The dashboard: static pages under `/dashboard` that read only the public `/v1` answers."""
