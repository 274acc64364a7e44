"""The `wizard-bot` command line (placeholder until the CLI lands)."""


def main() -> None:
    """Entry point of the `wizard-bot` console script."""
    print("wizard-bot")
