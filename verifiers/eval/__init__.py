"""Quality evaluation that needs no proxy: what ``veriproxy eval`` runs on the public data."""
