# syntax=docker/dockerfile:1
# wizard-bot as a container: the bot, the embedded Redis-compatible server of the `embedded`
# extra, and a health check. docs/operations.md, "Deploying with a container", says how to build
# and run it; tests/test_container.py lints this file and runs its commands.

# The build: a virtual environment with the project and its dependencies (all of them wheels).
# The full image of the same Python and Debian has a C compiler: setup.py compiles the hard AI's
# playouts and simulate's random games with mypyc (docs/ai.md, "Compiled playouts"), and what it
# builds needs nothing at run time that the slim image lacks.
FROM python:3.12-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/wizard-bot
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY bot bot
COPY adapters adapters
# pip runs from the base image, so the environment holds no pip of its own; its downloads stay
# in the build's cache, out of the image
RUN --mount=type=cache,target=/root/.cache/pip \
    python -m venv --without-pip "$VIRTUAL_ENV" \
    && python -m pip --python "$VIRTUAL_ENV/bin/python" install ".[embedded]"

# The image: the same Python without the build tools, that environment, FriBiDi (Pillow's wheel
# loads it to lay out right-to-left names on the score sheet's picture, docs/players.md), the
# fonts that picture draws Chinese, Japanese and emoji with (Droid Sans Fallback: CJK, kana and
# Hangul, 7.3 MB; Noto Color Emoji, 10.7 MB; bot/show/system_fonts.py), a user of its own and
# the /data volume.
FROM python:3.12-slim-bookworm
ENV VIRTUAL_ENV=/opt/wizard-bot
COPY --from=build /opt/wizard-bot /opt/wizard-bot
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends \
        libfribidi0 fonts-droid-fallback fonts-noto-color-emoji \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin wizard \
    && mkdir /data \
    && chown wizard:wizard /data
ENV PATH="$VIRTUAL_ENV/bin:$PATH" \
    PYTHONUNBUFFERED=1 \
    WIZARD_DATA_DIR=/data \
    WIZARD_METRICS_LISTEN=0.0.0.0:9100
VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
# 8080: Telegram's webhook (with WIZARD_TELEGRAM_LISTEN=0.0.0.0:8080); 9100: health and metrics
EXPOSE 8080 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["wizard-bot", "health"]
CMD ["wizard-bot", "run"]
