"""What people see: screens built from engine views (`screens`), the small formatters they share
with the terminal and the replay (`formatters`), deck themes (`themes`) and translations
(`i18n`, with the catalogs in `locale/`)."""
