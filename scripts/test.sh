#!/usr/bin/env bash
# Builds from scratch with warnings as errors and runs the whole test suite through ctest.
# The README's test command and CI (.ci/run) both run this script.
#   scripts/test.sh              Release build, every test
#   scripts/test.sh --sanitize   the same suite with AddressSanitizer + UndefinedBehaviorSanitizer
#                                (build-sanitize/; any report fails the test that triggered it)
#   scripts/test.sh --fuzz-smoke clang + libFuzzer build (build-fuzz/), every fuzz target replays its
#                                corpus under ASan+UBSan (the CI smoke run); needs
#                                `bash scripts/install-deps.sh fuzz`
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
jobs=$(nproc)
case "$mode" in
  "")
    BUILD_DIR=${BUILD_DIR:-build-test}
    flags=(-DCMAKE_BUILD_TYPE=Release)
    ;;
  --sanitize)
    BUILD_DIR=${BUILD_DIR:-build-sanitize}
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMSIZE_SANITIZE=ON)
    # Leaks are reported too; a report aborts the process, so its test fails.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    ;;
  --fuzz-smoke)
    BUILD_DIR=${BUILD_DIR:-build-fuzz}
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMSIZE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++)
    ;;
  *)
    echo "test.sh: unknown option '$mode' (known: --sanitize, --fuzz-smoke)" >&2
    exit 2
    ;;
esac
rm -rf "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" "${flags[@]}" -DLLMSIZE_WERROR=ON -DLLMSIZE_BUILD_TESTS=ON
if [ "$mode" = "--fuzz-smoke" ]; then
  targets=(fuzz_gguf fuzz_safetensors fuzz_hf_config fuzz_plan_catalog fuzz_bench_result)
  cmake --build "$BUILD_DIR" -j"$jobs" --target "${targets[@]}"
  for t in "${targets[@]}"; do
    name=${t#fuzz_}
    "$BUILD_DIR/fuzz/$t" -runs=0 "fuzz/corpus/$name"
  done
  exit 0
fi
cmake --build "$BUILD_DIR" -j"$jobs"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$jobs"
