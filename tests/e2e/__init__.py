"""Real processes: `oracle serve` over HTTP and in Chromium, refreshes and servers killed, faults injected."""
