"""The application around the engine: configuration, storage, the game service and the CLI."""
