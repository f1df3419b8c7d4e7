#!/bin/sh
# Builds the libFuzzer harnesses with clang in build-fuzz, everything
# instrumented (RLYEH_FUZZ=ON), and runs each for SECONDS (default 20) with
# ctest -L fuzz. Needs clang and its runtime (libclang-rt-dev).
# Usage: tests/fuzz/run.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-20}
jobs=$(nproc 2>/dev/null || echo 2)
cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null; then
	echo "tests/fuzz/run.sh: $cc not found (install clang and libclang-rt-dev)" >&2
	exit 1
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DRLYEH_FUZZ=ON -DRLYEH_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build build-fuzz -j "$jobs" --target fuzzers
ctest --test-dir build-fuzz -L fuzz --output-on-failure -j "$jobs"
