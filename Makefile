# Thin wrapper around CMake. `make` builds, `make test` builds and runs every test,
# `make test-asan` does the same under AddressSanitizer + UndefinedBehaviorSanitizer.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
S390X_BUILD ?= build-s390x
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all build test test-asan test-tsan test-soak test-long test-mpi4py install package demo bench \
        bench-p2p bench-coll bench-tcp bench-wan bench-io bench-noncontig bench-threads bench-hetero bench-scale clean tunables-readme build-s390x hetero-programs \
        hetero-suite-programs test-hetero

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The long tests (label long, registered with -DMETAMPI_LONG_TESTS=ON) never run here:
# make test-long and make test-soak run them; mpi4py's suite (label mpi4py) is make test-mpi4py.
test: build hetero-programs
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'long|mpi4py' $(CTEST_ARGS)

# mpi4py's own test suite against this build (tests/mpi4py; needs scripts/fetch-mpi4py.sh's
# downloads, which scripts/install-deps.sh makes).
test-mpi4py: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L mpi4py $(CTEST_ARGS)

# Under the sanitizers the MPI test programs run on emulated hosts in the uneven layout only
# (3 hosts of 1, 2, 3 ranks), and on emulated sites only the subset in the uneven site layout,
# to keep the whole CI run within its time.
$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DMETAMPI_SANITIZE=ON -DMETAMPI_CLUSTER_LAYOUTS=1,2,3 \
	  -DMETAMPI_SITES_LAYOUTS= $(CMAKE_ARGS)

# handle_segv=0: a rank that crashes must die of its signal, as it would without ASan, so the
# launcher's crash reports are tested the same way. tests/lsan.supp: leaks of other libraries.
test-asan: $(ASAN_BUILD)/CMakeCache.txt hetero-programs
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:handle_segv=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE long $(CTEST_ARGS)

# ThreadSanitizer over the threaded tests (label threads) and the thread-level ones; every
# suppression in tests/tsan.supp says why it is benign. The programs only, one host.
$(TSAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(TSAN_BUILD) -DMETAMPI_TSAN=ON -DMETAMPI_CLUSTER_TESTS=OFF $(CMAKE_ARGS)

test-tsan: $(TSAN_BUILD)/CMakeCache.txt
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -L threads $(CTEST_ARGS)

# libmpi and the MPI test programs for s390x (big-endian), with Debian's cross toolchain
# (scripts/install-deps.sh installs it); the native build's mpirun runs them under qemu-s390x
# and its tests of label hetero use them (docs/heterogeneity.md).
$(S390X_BUILD)/CMakeCache.txt:
	cmake -S . -B $(S390X_BUILD) -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-s390x.cmake \
	  -DMETAMPI_CLUSTER_TESTS=OFF $(CMAKE_ARGS)

build-s390x: $(S390X_BUILD)/CMakeCache.txt
	cmake --build $(S390X_BUILD) -j $(JOBS)

# Only the s390x programs the tests of label hetero in make test run (they are skipped without
# them), when the cross compiler is there: libmpi, the hetero_* programs, the demo (make demo
# runs it with an s390x site), test_io_external32 (a portable file) and the twins of the
# suite's short subset (hetero-suite-short, tests/hetero/suite.cmake), not every test program.
# hetero-suite-programs builds the twins of every general program the long hetero tests run.
# The build tree is configured again first: a target new since it was made is otherwise
# unknown to it.
S390X_CONFIGURE = cmake -S . -B $(S390X_BUILD) \
	  -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-s390x.cmake -DMETAMPI_CLUSTER_TESTS=OFF \
	  $(CMAKE_ARGS) >/dev/null
hetero-programs:
	@if command -v s390x-linux-gnu-gcc >/dev/null; then \
	  $(S390X_CONFIGURE) && \
	  cmake --build $(S390X_BUILD) -j $(JOBS) --target hetero_bytes hetero_colls hetero_colls_derived hetero_intercomm hetero_rma hetero_io hetero_packed hetero_rma_struct hetero_spawn metampi-demo test_io_external32 hetero-suite-short; \
	else echo "no s390x cross compiler (scripts/install-deps.sh): the hetero tests are skipped"; fi

hetero-suite-programs: hetero-programs
	@if command -v s390x-linux-gnu-gcc >/dev/null; then \
	  cmake --build $(S390X_BUILD) -j $(JOBS) --target hetero-suite-programs; fi

# Every test of label hetero, the long ones too: the suite's general programs with an s390x
# site (tests/hetero/suite.cmake; a few minutes on 2 cores) and hetero.without_hetero.build
# (a second build of the tree, without heterogeneity support).
test-hetero: build hetero-suite-programs
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L hetero $(CTEST_ARGS)

# The soak tests (label soak): the long versions of the compute-phase tests (35 s outside MPI
# between communications, over TCP, on emulated hosts and across emulated sites).
test-soak: $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DMETAMPI_LONG_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L soak $(CTEST_ARGS)

# Every long test (label long: the soak tests, e.g. 10000 communicator create/free cycles, and
# the suite's general programs with an s390x site, whose twins hetero-suite-programs builds).
test-long: $(BUILD)/CMakeCache.txt hetero-suite-programs
	cmake -S . -B $(BUILD) -DMETAMPI_LONG_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L long $(CTEST_ARGS)

# README.md's tables of environment variables, regenerated from src/runtime/tunables.def (the
# build fails while they differ; docs/tunables.md).
tunables-readme: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) --target metampi-tunables-doc
	$(BUILD)/tests/bin/metampi-tunables-doc --write README.md

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian package (packaging/package.cmake, docs/packages.md), into $(BUILD)/package/.
package: build
	cmake --build $(BUILD) --target package

# The stencil demo on one site and on two emulated sites (one site only without namespaces);
# logs, per-step times and the plot in $(BUILD)/demo/. DEMO_ARGS: see examples/demo/run_demo.sh.
demo: build hetero-programs
	examples/demo/run_demo.sh --build $(BUILD) --s390x $(S390X_BUILD) $(DEMO_ARGS)

bench: build
	cmake --build $(BUILD) --target bench

bench-coll: build
	cmake --build $(BUILD) --target bench-coll

bench-tcp: build
	cmake --build $(BUILD) --target bench-tcp

bench-wan: build
	cmake --build $(BUILD) --target bench-wan

bench-io: build
	cmake --build $(BUILD) --target bench-io

bench-p2p: build
	cmake --build $(BUILD) --target bench-p2p

bench-noncontig: build
	cmake --build $(BUILD) --target bench-noncontig

bench-threads: build
	cmake --build $(BUILD) --target bench-threads

bench-hetero: build
	cmake --build $(BUILD) --target bench-hetero

bench-scale: build
	cmake --build $(BUILD) --target bench-scale

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(S390X_BUILD)
