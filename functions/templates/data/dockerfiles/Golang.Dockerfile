# Two stages: compile with the Go toolchain, then copy the static binary into a small image.
FROM golang:1.22 AS build
WORKDIR /src

# Download the modules first, so that the layer is reused while go.mod and go.sum do not change.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/app .

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/app /app
USER nonroot:nonroot
ENTRYPOINT ["/app"]
