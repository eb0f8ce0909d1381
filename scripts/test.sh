#!/usr/bin/env bash
# Builds from scratch with warnings as errors and runs the whole test suite through ctest.
# The README's test command and CI (.ci/run) both run this script.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-test}
rm -rf "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DLLMSIZE_WERROR=ON -DLLMSIZE_BUILD_TESTS=ON
cmake --build "$BUILD_DIR" -j"$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)"
