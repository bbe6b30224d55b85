"""``GET /healthz``: whether every part of the platform is up and doing its work."""
