"""Everything that changes a tournament, one module per concept; views and the Celery tasks
call one function each, from the module itself (nothing is re-exported here).

- :mod:`.setup`: creating and configuring a tournament, its co-organisers, its settings.
- :mod:`.entries`: who plays: registration, invitations, withdrawals, forbidden pairs.
- :mod:`.running`: the start, the rounds (seating, scoring, eliminating), adjudication.
- :mod:`.changes`: how every change is made. It takes the tournament's row lock first
  (:func:`.changes.locked`), so an organiser's action, a registration and the
  round-advancing task never interleave; organiser actions are written to the audit log in
  the same transaction; the tournament's ``version`` moves on and its watchers are woken
  once the change commits (:func:`.changes.changed`).

The functions take keyword arguments after the acting player and refuse with the domain
errors of ``core.errors``; the API and the pages turn those into answers.
"""
