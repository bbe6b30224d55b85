"""What the games app announces, after commit, for other apps to consume.

``games`` imports none of its consumers: ratings and tournaments connect receivers to
:data:`game_finished`; the bots app (house bots, webhooks) connects to :data:`turn_started`.
"""

from django.dispatch import Signal

#: A game ended. Keyword arguments: ``game_id``, ``rated`` and ``standings`` (a list of
#: ``{"seat", "player_id", "rank", "score"}``; ranks as RULES.md, ties share a rank). Sent
#: with ``send_robust``: a receiver's error is logged and keeps from no other receiver.
game_finished = Signal()

#: A seat must act. Keyword arguments: ``game_id``, ``seat``, ``player_id``, ``username`` and
#: ``is_bot`` (of whoever plays the seat now: after a hand-over, the house bot) and
#: ``version`` (the game's version at which the seat became due). Sent with ``send_robust``.
turn_started = Signal()
