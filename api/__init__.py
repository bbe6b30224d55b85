"""The HTTP edge every app's API shares: the error shape and statuses, pages, input, rendering."""
