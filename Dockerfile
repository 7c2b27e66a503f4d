# Multi-stage build: dependencies are cooked in their own layer (cargo-chef), the runtime is a
# slim Debian with only CA certificates, running as a non-root user.
FROM rust:1.95-bookworm AS chef
RUN cargo install cargo-chef --locked
WORKDIR /app

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
RUN cargo chef cook --release --recipe-path recipe.json
COPY . .
# The same build command CI and the README use.
RUN cargo build --release --locked --bin concord

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/concord concord \
    && mkdir -p /var/lib/concord/data && chown -R concord /var/lib/concord
COPY --from=builder /app/target/release/concord /usr/local/bin/concord
USER concord
WORKDIR /var/lib/concord
ENV CONCORD_DATABASE_URL=sqlite:///var/lib/concord/concord.db \
    CONCORD_BIND=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/concord", "healthcheck", "http://127.0.0.1:8080"]
ENTRYPOINT ["/usr/local/bin/concord"]
CMD ["serve"]
