"""Every connection between the apps, in one visible place.

The apps depend one way (games knows nothing of bots, ratings or tournaments); where a
lower app must reach work of a higher one, it announces or offers an extension point, and
this module, run once the apps are loaded (``config.apps.WiringConfig``), connects them.
"""

from __future__ import annotations

from typing import TypeVar

from django.conf import settings

T = TypeVar("T")


def connect() -> None:
    from accounts import signals as account_signals
    from accounts.token_cache import tokens
    from arena import receivers as arena_receivers
    from arena import services as arena_services
    from arena import tasks as arena_tasks
    from bots import receivers as bot_receivers
    from bots.strategies import strong
    from challenges import live as challenge_live
    from challenges import selectors as challenge_selectors
    from clubs import selectors as club_selectors
    from games import in_play, signals
    from games import live as game_live
    from games import selectors as game_selectors
    from notifications import live as notification_live
    from ratings import display as rating_display
    from ratings import receivers as rating_receivers
    from ratings import selectors as rating_selectors
    from realtime import feeds, hub, revocation, stream
    from tournaments import live as tournament_live
    from tournaments import receivers as tournament_receivers
    from tournaments import selectors as tournament_selectors
    from web.views.challenges import lists_fragment
    from web.views.games import table_fragment
    from web.views.home import in_play_fragment
    from web.views.notifications import bell_fragment
    from web.views.room import screen_fragment
    from web.views.tournaments import live_fragment

    # A game ended: rate it, and move its tournament on.
    signals.game_finished.connect(
        rating_receivers.on_game_finished, dispatch_uid="ratings.on_game_finished"
    )
    signals.game_finished.connect(
        tournament_receivers.on_game_finished, dispatch_uid="tournaments.on_game_finished"
    )
    # A game played at a real table was entered: rate it, and move its tournament on.
    signals.recorded_game_finished.connect(
        rating_receivers.on_recorded_game_finished, dispatch_uid="ratings.on_recorded_game"
    )
    signals.recorded_game_finished.connect(
        tournament_receivers.on_recorded_game_finished,
        dispatch_uid="tournaments.on_recorded_game",
    )
    # An arena game ended: seat its pool's bots again.
    signals.game_finished.connect(
        arena_receivers.on_game_finished, dispatch_uid="arena.on_game_finished"
    )
    # A seat must act: a house bot plays it, a webhook bot is called.
    signals.turn_started.connect(bot_receivers.enqueue_bot_turn, dispatch_uid="bots.turns")

    # A revoked token's streams and long polls end, and every web process forgets a token
    # that was revoked or changed (accounts/token_cache.py), trusting what it kept only
    # while it hears every change.
    account_signals.tokens_revoked.connect(
        revocation.wake_waiters_of_revoked_tokens, dispatch_uid="realtime.revoked_tokens"
    )
    account_signals.tokens_changed.connect(
        revocation.announce_changed_tokens, dispatch_uid="realtime.changed_tokens"
    )
    hub.on_changes_elsewhere(revocation.forget_tokens_changed_elsewhere)
    # Live feeds read again once the subscription is back: what came meanwhile went unheard.
    hub.on_changes_elsewhere(feeds.read_all_when_unheard)
    tokens.is_current = revocation.token_cache_is_current

    # A stream starts with a your_turn line for every game waiting on its player.
    _add(stream.ON_CONNECT, game_selectors.pending_turns_lines)
    # ... and a challenge line for every challenge waiting on its player's answer.
    _add(stream.ON_CONNECT, challenge_selectors.pending_challenge_lines)
    # A bot joined an arena: the worker seats it.
    _add(arena_services.SEATING_REQUESTS, arena_tasks.enqueue_seating)
    # Profiles and match histories show ratings.
    _add(game_selectors.PROFILE_EXTRAS, rating_selectors.profile_ratings)
    _add(game_selectors.HISTORY_EXTRAS, rating_selectors.history_rating_changes)
    # A duplicate tournament's round keeps its games' deals to their own seats while it plays.
    _add(game_selectors.EMBARGOES, tournament_selectors.deals_embargoed)
    # Tournament seeding and rating-range limits read the ratings.
    _add(tournament_selectors.RATING_SOURCES, rating_selectors.seeding_ratings)
    _add(tournament_selectors.RATING_DISPLAYS, rating_display.display_rating)
    # A club's members show their ratings.
    _add(club_selectors.MEMBER_RATINGS, rating_selectors.display_ratings)

    # A game's live feed renders the page's table once per seat for all that seat's pages.
    game_live.FRAGMENTS.setdefault("table", table_fragment)
    # A tournament's live feed renders the page's live part once for all its pages.
    tournament_live.FRAGMENTS.setdefault("live", live_fragment)
    # ... and the room's screen once for all its screens.
    tournament_live.FRAGMENTS.setdefault("screen", screen_fragment)
    # The home pages' list of the games being played is rendered once for all of them.
    in_play.FRAGMENTS.setdefault(in_play.FRAGMENT, in_play_fragment)
    # A person's challenges feed renders their page's lists once for all their pages.
    challenge_live.FRAGMENTS.setdefault(challenge_live.FRAGMENT, lists_fragment)
    # A person's notifications feed renders the bell once for all their pages.
    notification_live.FRAGMENTS.setdefault(notification_live.FRAGMENT, bell_fragment)

    # The house bots' strategies are pure Python (no Django): the setting reaches them here.
    strong.MAX_DEALS = settings.HOUSE_BOT_STRONG_DEALS


def _add(extension_point: list[T], contribution: T) -> None:
    if contribution not in extension_point:
        extension_point.append(contribution)
