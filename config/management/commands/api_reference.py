"""``manage.py api_reference``: remake docs/api.md's endpoint tables from the OpenAPI schema
(``--check``: only say whether they are current; a test runs it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from api.reference import with_endpoint_tables

API_DOC = Path(settings.BASE_DIR) / "docs" / "api.md"


def current_schema() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return dict(json.loads(OpenApiJsonRenderer().render(generated)))


class Command(BaseCommand):
    help = "Remake the endpoint tables of docs/api.md from the OpenAPI schema."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--check", action="store_true", help="fail if they are not current")

    def handle(self, *args: Any, **options: Any) -> None:
        text = API_DOC.read_text()
        made = with_endpoint_tables(text, current_schema())
        if options["check"]:
            if made != text:
                raise CommandError(
                    "docs/api.md's endpoint tables are stale: manage.py api_reference"
                )
            self.stdout.write("docs/api.md's endpoint tables are current")
            return
        API_DOC.write_text(made)
        self.stdout.write(f"wrote {API_DOC}")
