#!/usr/bin/env bash
# run_libfuzzer.sh FUZZER REPLAY DIR SECONDS: seeds DIR/corpus from the replay driver's
# built-in seeds, then runs the libFuzzer binary on it for SECONDS (fixed seed, so a run is
# repeatable). A crash leaves its input in DIR (crash-*), replayable with REPLAY FILE.
set -euo pipefail
fuzzer=$(realpath "$1") replay=$(realpath "$2") dir=$3 seconds=$4
mkdir -p "$dir/corpus"
"$replay" --write-seeds "$dir/corpus"
cd "$dir"
exec "$fuzzer" -max_total_time="$seconds" -seed=1 -rss_limit_mb=2048 -print_final_stats=1 \
     corpus
