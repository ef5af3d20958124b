# nodegate: a static binary on a distroless base, run as a non-root user.
#   docker build -t nodegate .
#   docker run -p 8545:8545 nodegate serve --listen 0.0.0.0:8545
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# CGO off: the SQLite driver (modernc.org/sqlite) is pure Go.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/nodegate ./cmd/nodegate \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/nodegate /usr/local/bin/nodegate
COPY --from=build --chown=65532:65532 /out/data /var/lib/nodegate
USER 65532:65532
WORKDIR /var/lib/nodegate
EXPOSE 8545 8546
# /health is liveness; load balancers use /ready. The binary checks itself
# (distroless has no curl): `nodegate health URL` exits 0 on a 200.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/nodegate", "health", "http://127.0.0.1:8545/health"]
ENTRYPOINT ["/usr/local/bin/nodegate"]
CMD ["serve", "--listen", "0.0.0.0:8545", "--data-dir", "/var/lib/nodegate"]
