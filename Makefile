# Thin wrapper around CMake + ctest: the two commands README.md starts with.
#   make bench   the library and the nandkit tool only (a C compiler and CMake,
#                nothing else), then the page-level benchmark
#   make test    installs the test dependencies (Debian; elsewhere it names
#                them and stops), builds everything and runs every test
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# The makes that `cmake --build` starts (Unix Makefiles generator) inherit
# this: no "Entering/Leaving directory" line for every subdirectory.
MAKEFLAGS += --no-print-directory

.PHONY: all bench test deps build clean

all: build

deps:
	scripts/install-deps.sh build test qemu

# The tool alone: configured without tests when the build tree is new (a tree
# that `make test` configured keeps its tests; only the tool is built).
bench:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DNANDKIT_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target nandkit
	@printf '\n== nandkit bench --chip K9F1G08U0A ==\n\n'
	@$(BUILD)/tools/nandkit bench --chip K9F1G08U0A

build: deps
	cmake -S . -B $(BUILD) -DNANDKIT_TESTS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
