# Runs a prebuilt executable. Build it for linux/amd64 (or the platform of your runners) first.
FROM debian:bookworm-slim

# Certificates for outgoing TLS connections.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# Replace `app` with the name of your executable.
COPY app /usr/local/bin/app

# Run as an unprivileged user.
RUN useradd --system --no-create-home app
USER app

CMD ["app"]
