"""Foundations every app may use and that use no app: domain errors, JSON, Redis, SQL paths."""
