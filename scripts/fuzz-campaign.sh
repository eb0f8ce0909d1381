#!/usr/bin/env bash
# A fuzz campaign: every libFuzzer target in turn (one process at a time, at nice 19 so it only
# takes idle CPU), each for RUNS executions under ASan+UBSan, from a fresh corpus seeded with
# fuzz/corpus/<target>/ plus the inputs of earlier campaigns (CARRY/<target>/ when it exists).
#   scripts/fuzz-campaign.sh BUILD_DIR OUT_DIR [RUNS] [CARRY]
# BUILD_DIR is a -DLLMSIZE_FUZZ=ON build (scripts/test.sh --fuzz-smoke makes build-fuzz/);
# OUT_DIR gets <target>/ (the corpus it grew), <target>.log and summary.txt, one line per target:
#   <target> exit=<code> runs=<executions> seconds=<wall time> findings=<crash/leak/timeout files>
# Exit 1 if any target found something (its reproducer is OUT_DIR/<target>-artifacts/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz-campaign.sh BUILD_DIR OUT_DIR [RUNS] [CARRY]}
out=${2:?usage: scripts/fuzz-campaign.sh BUILD_DIR OUT_DIR [RUNS] [CARRY]}
runs=${3:-10000000}
carry=${4:-}
targets=${TARGETS:-"gguf safetensors hf_config plan_catalog bench_result"}
mkdir -p "$out"
status=0
for name in $targets; do
  bin="$build/fuzz/fuzz_$name"
  corpus="$out/$name"
  artifacts="$out/$name-artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp -n fuzz/corpus/"$name"/* "$corpus"/
  if [ -n "$carry" ] && [ -d "$carry/$name" ]; then cp -n "$carry/$name"/* "$corpus"/ || true; fi
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  start=$(date +%s)
  set +e
  nice -n 19 "$bin" "${dict[@]}" -runs="$runs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" > "$out/$name.log" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -1)
  findings=$(find "$artifacts" -type f | wc -l)
  echo "$name exit=$rc runs=${execs:-?} seconds=$secs findings=$findings corpus=$(ls "$corpus" | wc -l)" >> "$out/summary.txt"
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then status=1; fi
done
exit $status
