"""Read models for the app's pages: what each page shows, computed from the store, stats and reports; the figures."""
