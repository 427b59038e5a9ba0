# Two stages: compile with Cargo, then copy the binary into a slim image.
FROM rust:1 AS build
WORKDIR /src
COPY . .
RUN cargo build --release

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# Replace `app` with the name of your crate's binary.
COPY --from=build /src/target/release/app /usr/local/bin/app
CMD ["app"]
