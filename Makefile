# Thin wrapper around CMake + ctest. `make bench` and `make test` are the two
# commands README.md promises work on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all bench test deps build clean

all: build

deps:
	scripts/install-deps.sh build test qemu

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DNANDKIT_TESTS=ON $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the page-level benchmark on the simulated K9F1G08U0A.
bench: build
	$(BUILD)/tools/nandkit bench --chip K9F1G08U0A

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
