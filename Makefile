# Makefile - the two-command quick start and a few conveniences around CMake.
#   make demo    install missing build deps (as root), build, run the bundled demo
#   make test    install missing test deps (as root), build, run the whole suite
#   make asan    the whole suite under ASan+UBSan (build-asan/)
#   make fuzz    build the libFuzzer targets with clang and run each briefly
#   make install PREFIX=/usr/local
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
WERROR  ?= OFF
FUZZ_SECONDS ?= 20
CMAKE_FLAGS ?=

.PHONY: all build deps test-deps demo test asan fuzz install clean

all: build

deps:
	@build-aux/install-deps.sh build

test-deps:
	@build-aux/install-deps.sh test

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DBENCHRUN_WERROR=$(WERROR) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash examples/demo/run-demo.sh $(BUILD)

test: test-deps
	cmake -S . -B $(BUILD) -DBENCHRUN_WERROR=$(WERROR) -DBENCHRUN_REQUIRE_UNIT_TESTS=ON -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slurm

asan: test-deps
	cmake -S . -B build-asan -DBENCHRUN_SANITIZE=ON -DBENCHRUN_WERROR=$(WERROR) -DBENCHRUN_CUDA=OFF \
	  -DBENCHRUN_REQUIRE_UNIT_TESTS=ON
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS) -LE slurm

fuzz:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DBENCHRUN_FUZZ=ON -DBENCHRUN_TESTS=OFF -DBENCHRUN_CUDA=OFF \
	  -DBENCHRUN_WERROR=$(WERROR)
	cmake --build build-fuzz -j $(JOBS)
	@bash tests/fuzz/run-all.sh build-fuzz $(FUZZ_SECONDS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
