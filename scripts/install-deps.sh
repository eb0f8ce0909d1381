#!/usr/bin/env bash
# Installs the Debian 12 packages llmsize builds and tests with, if any is missing.
#   bash scripts/install-deps.sh        the build and the tests (what CI needs)
#   bash scripts/install-deps.sh fuzz   also clang and its sanitizer/libFuzzer runtime, for
#                                       -DLLMSIZE_FUZZ=ON (optional: the normal build never needs them)
set -euo pipefail
# librsvg2-bin: rsvg-convert renders the --plot SVGs in tests/cli/planning_cli_test.cpp; python3
# and jq: the docs.readme_current test regenerates the outputs in README.md and docs/*.md
# (scripts/update-readme.py).
# chromium: the only Debian package that renders HTML with CSS and inline SVG headless to a PNG;
# tests/cli/machine_cli_test.cpp renders --format html with it (the procurement report is meant
# to be opened in a browser, so a browser is what checks it; the test skips with a message when it
# is absent, CI installs it here). valgrind: its callgrind counts the instructions of an answer
# for the bench.instructions gate (bench/instructions_bench.cpp), which a timing on a shared
# machine could not hold to a limit. python3-yaml: the cli.k8s_manifests test parses the
# --emit k8s manifests as a cluster would (scripts/check-k8s.py).
pkgs=(g++ cmake make libcli11-dev nlohmann-json3-dev libfmt-dev catch2 jq librsvg2-bin python3
  python3-yaml chromium valgrind)
for group in "$@"; do
  case "$group" in
    fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps: unknown group '$group' (known: fuzz)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
