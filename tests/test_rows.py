"""core/rows.py: one row loaded by plain SQL is the instance the ORM would load."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.auth import issue_token
from accounts.models import ApiToken, Player
from core.rows import load_one, load_row

pytestmark = pytest.mark.django_db


def field_values(instance: object) -> dict[str, object]:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_it_loads_every_field_as_the_orm_does() -> None:
    player = Player.objects.create_user("rowan", password="a long pass phrase")
    token, _ = issue_token(player, ["play", "bot"], "laptop")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now() - timedelta(hours=3))
    table = ApiToken._meta.db_table

    loaded = load_one(ApiToken, f"FROM {table} WHERE id = %s", [token.pk])

    assert loaded is not None
    assert field_values(loaded) == field_values(ApiToken.objects.get(pk=token.pk))
    assert sorted(loaded.scopes) == ["bot", "play"]  # a JSON column comes back decoded
    assert loaded.last_used_at is not None and timezone.is_aware(loaded.last_used_at)
    assert loaded._state.adding is False and loaded._state.db == connection.alias


def test_it_gives_none_when_no_row_matches() -> None:
    table = Player._meta.db_table

    assert load_one(Player, f"FROM {table} WHERE id = %s", [-1]) is None


def test_it_loads_an_instance_that_saves_as_an_update() -> None:
    player = Player.objects.create_user("saves", password="a long pass phrase")
    loaded = load_one(Player, f"FROM {Player._meta.db_table} WHERE id = %s", [player.pk])
    assert loaded is not None

    loaded.first_name = "Sam"
    loaded.save(update_fields=["first_name"])

    assert Player.objects.get(pk=player.pk).first_name == "Sam"
    assert Player.objects.count() == 1


def test_it_loads_one_instance_of_each_model_from_a_joined_row() -> None:
    player = Player.objects.create_user("joined", password="a long pass phrase")
    token, _ = issue_token(player, ["play"], "phone")
    tokens, players = ApiToken._meta.db_table, Player._meta.db_table

    loaded = load_row(
        [ApiToken, Player],
        f"FROM {tokens} JOIN {players} ON {players}.id = {tokens}.player_id WHERE {tokens}.id = %s",
        [token.pk],
    )

    assert loaded is not None
    assert field_values(loaded[0]) == field_values(ApiToken.objects.get(pk=token.pk))
    assert field_values(loaded[1]) == field_values(Player.objects.get(pk=player.pk))
    assert load_row([ApiToken, Player], f"FROM {tokens} JOIN {players} ON false", []) is None
