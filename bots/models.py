"""Models of this app (filled in by the issue that builds it)."""
