"""The HTTP API: endpoints on the real snapshot, keys and their stores, the server stack."""
