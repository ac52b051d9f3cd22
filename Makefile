# hcemu - the two commands of the quick start, and a few more. The real build is CMake.
#   make demo   build everything and run the AllGather example on 8 emulated devices
#   make test   build (plain and ASan+UBSan) and run the whole test suite
#   make bench-report   run the benchmarks and write docs/perf/ (tables, SVG plots) and the
#               README's summary table; installs OpenMPI and gnuplot first (bench-deps)
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CTEST_ARGS ?= --output-on-failure
# The hccl_test tools of the cliff sweep in `make bench` (bench/collectives.sh).
BENCH_TOOLS ?= all_reduce_test all_gather_test broadcast_test reduce_scatter_test reduce_test \
               alltoall_test scatter_test
# Seconds each fuzz target runs (scripts/fuzz): short in `make test`, e.g. 600 for a real run.
FUZZ_SECONDS ?= 15

.PHONY: all deps bench-deps build build-asan demo test test-plain test-asan fuzz bench bench-report \
        scale install clean

all: build

deps:
	@scripts/deps

# Only for the benchmark report: OpenMPI (the baseline beside hcemu) and gnuplot (the plots).
bench-deps:
	@scripts/deps openmpi-bin libopenmpi-dev gnuplot-nox

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DEMU_ASAN=ON -DEMU_UBSAN=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)

demo: build
	@$(BUILD)/bin/hcemu-demo

test: test-plain test-asan fuzz

test-plain: build
	@cd $(BUILD) && ctest $(CTEST_ARGS) -j$(JOBS)

test-asan: build-asan
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 ctest $(CTEST_ARGS) -j$(JOBS) -LE no-asan

fuzz: deps
	@scripts/fuzz $(FUZZ_SECONDS)

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done
	@echo "== bench_startup 64"; $(BUILD)/bin/bench_startup 64
	@echo "== bench/collectives.sh (the cliff sweep: every tool, 2-16 ranks, 1 KiB-256 MiB, x2)"
	@FACTOR=2 MAXB=256M RANKS="2 4 8 16" TOOLS="$(BENCH_TOOLS)" bench/collectives.sh $(BUILD)
	@echo "== bench/choice.sh"; bench/choice.sh $(BUILD)
	@echo "== bench/picks.sh"; bench/picks.sh $(BUILD)
	@echo "== bench/versus.sh"; bench/versus.sh $(BUILD)
	@echo "== bench/direct.sh"; bench/direct.sh $(BUILD)
	@echo "== bench/wakes.sh"; bench/wakes.sh $(BUILD)
	@echo "== bench/launch.sh"; bench/launch.sh $(BUILD)
	@echo "== bench/net.sh"; bench/net.sh $(BUILD)
	@echo "== bench/net_wakes.sh"; bench/net_wakes.sh $(BUILD)
	@echo "== $(BUILD)/bin/hcemu-model-table"; $(BUILD)/bin/hcemu-model-table

# docs/perf/: every collective beside OpenMPI and the copy bound, the modelled time of each
# algorithm, the data plane's hand-offs; a few minutes on two cores (MAXB=4M for a short one).
bench-report: build bench-deps
	@bench/report.sh $(BUILD) docs/perf

# 256 ranks as threads and as processes, peak memory and start-up times; minutes, not in CI.
scale: build
	@bench/scale.sh $(BUILD) 256

install: build
	@cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
