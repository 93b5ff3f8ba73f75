"""API keys, the free tier and rate limits."""
