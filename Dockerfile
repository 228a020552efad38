# gmlg on Debian bookworm with Go 1.26. A thin wrapper over the Makefile
# targets that CI runs: `make deps` installs SuiteSparse/OpenBLAS, `make build`
# builds the binary; `docker run --entrypoint make gmlg test` runs the tests.
FROM golang:1.26-bookworm
WORKDIR /src/gmlg
COPY Makefile ./
RUN make deps
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build && cp bin/gmlg /usr/local/bin/gmlg
ENTRYPOINT ["gmlg"]
CMD ["help"]
