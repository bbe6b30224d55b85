from django.db import models


class Probe(models.Model):
    """Created by a test, marked by :func:`tests.probe.tasks.mark_probe` on a worker."""

    label = models.CharField(max_length=100)
    processed_by = models.CharField(max_length=200, blank=True)
    processed_pid = models.IntegerField(null=True)

    def __str__(self) -> str:
        return f"probe {self.label}"
