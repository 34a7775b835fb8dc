# OpenBench builds engines with `make EXE=<name>`: the release binary under exactly that name
# in the repository root.
EXE ?= shears
CARGO ?= cargo

.PHONY: all clean

all:
	$(CARGO) build --release
	cp target/release/shears $(EXE)

clean:
	$(CARGO) clean
	rm -f shears shears-*
