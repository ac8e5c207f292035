#!/usr/bin/env bash
# fixed-costs.sh — what a whole client process costs, start-up included, against vLLM's client, at the rates most
# users run: issue 33's "fixed costs" (docs/cpu-engine-on-the-same-machine.md, "What infermark costs on a small run",
# and docs/client-capacity-and-health.md, "What a quiet second costs").
#
# Two shapes, each against its own standalone simulator (the command's `infermark sim`, started from a copy of the
# jar so a rebuild cannot pull classes from under it), every run a whole process timed by /usr/bin/time (user + sys
# CPU, start-up, prompt generation, the test request and the report included, for every client):
#   small   40 requests of 64 input and 64 output tokens at one stream (sim: 20 ms TTFT, 10 ms between tokens),
#           about 2,560 streamed tokens in 27 s;
#   modest  400 requests of 64 input and 128 output tokens at 16 streams (sim: 25 ms TTFT, 8 ms between tokens),
#           about 51,200 tokens at 1,930 tokens/s, one token a chunk, each stream on its own timer;
#   batched the same requests against the engine profile paced as llama.cpp's server and vLLM pace a batch: one
#           8 ms decode step gives every running stream its next token at once (5 ms prefill), about 1,960 tokens/s.
# Per round, in this order: vLLM's client (shared/peers/vllm-bench, --request-rate inf --ignore-eos, the same
# lengths), infermark through `java -jar infermark.jar` (C1 only by its own compiler directive), and through the
# `infermark` launcher (C1, Shenandoah, class-data archive; its first run per jar writes the archive, so a warm-up
# launcher run comes first and is not counted). Each line says CPU seconds, wall seconds, streamed tokens/s;
# the last lines give each client's median CPU and its ratio to vLLM's median.
#
# With --threads, every infermark run is sampled by scripts/thread-cpu.py and its CPU printed per thread
# (I/O thread, main, JIT compilers, sender, monitors, GC).
#
# Usage: scripts/fixed-costs.sh [--shapes "small modest batched"] [--rounds 3] [--threads] [--skip-build] [--peers DIR]
#        [--port-base 8140]
# A measurement, not a test: the machine is shared, so quote the load average it prints with the figures.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHAPES="small modest batched"
ROUNDS=3
THREADS=0
BUILD=1
PEERS=""
PORT_BASE=8140
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shapes) SHAPES="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS=1; shift ;;
    --skip-build) BUILD=0; shift ;;
    --peers) PEERS="$2"; shift 2 ;;
    --port-base) PORT_BASE="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for s in $SHAPES; do
  [[ "$s" == small || "$s" == modest || "$s" == batched ]] || { echo "unknown shape $s (small, modest, batched)" >&2; exit 2; }
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds needs a positive whole number" >&2; exit 2; }
if [[ -z "$PEERS" ]]; then
  for d in "$ROOT/../shared/peers/vllm-bench" "/work/shared/peers/vllm-bench"; do
    [[ -f "$d/run_vllm.sh" ]] && PEERS=$(cd "$d" && pwd) && break
  done
fi
[[ -n "$PEERS" && -f "$PEERS/run_vllm.sh" ]] || { echo "vllm-bench not found; pass --peers DIR" >&2; exit 2; }
if ! /usr/bin/python3 -c 'import aiohttp, numpy, tqdm' 2>/dev/null; then
  echo "vLLM's client needs: apt-get update && apt-get install -y python3-aiohttp python3-numpy python3-tqdm" >&2
  exit 2
fi
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 2; }
if [[ $BUILD == 1 ]]; then
  (cd "$ROOT" && mvn -B -ntp -q -pl cli -am package -DskipTests)
fi
JAR="$ROOT/cli/target/infermark.jar"
LAUNCHER="$ROOT/cli/src/main/dist/infermark"
[[ -f "$JAR" ]] || { echo "build first (or drop --skip-build)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/infermark-fixed-costs.XXXXXX)
cp "$JAR" "$WORK/sim.jar"
SIM_PID=""
cleanup() {
  if [[ -n "$SIM_PID" ]]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "$(nproc) cores, $(java -version 2>&1 | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for shape in $SHAPES; do
  case $shape in
    small) port=$PORT_BASE
      sim=(--profile fixed --ttft-ms 20 --itl-ms 10 --output-tokens 64)
      lens=(--random-input-len 64 --random-output-len 64 --num-prompts 40 --max-concurrency 1) ;;
    modest) port=$((PORT_BASE + 1))
      sim=(--profile fixed --ttft-ms 25 --itl-ms 8)
      lens=(--random-input-len 64 --random-output-len 128 --num-prompts 400 --max-concurrency 16) ;;
    batched) port=$((PORT_BASE + 2))
      sim=(--profile llama-8b-h200 --step-overhead-ms 0 --decode-base-ms 8 --decode-per-seq-ms 0
        --decode-per-context-token-ms 0 --prefill-base-ms 5 --prefill-per-token-ms 0 --prefill-quadratic-ms 0)
      lens=(--random-input-len 64 --random-output-len 128 --num-prompts 400 --max-concurrency 16) ;;
  esac
  java -XX:TieredStopAtLevel=1 -jar "$WORK/sim.jar" sim "${sim[@]}" --port "$port" \
    > "$WORK/sim-$shape.log" 2>&1 &
  SIM_PID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" > /dev/null 2>&1 && break; sleep 0.1; done
  common=(--backend openai-chat --base-url "http://127.0.0.1:$port" --endpoint /v1/chat/completions
    --model infermark-sim --dataset-name random "${lens[@]}" --ignore-eos --seed 0)
  # the simulator's JIT warmed and the launcher's archive written, neither counted
  "$LAUNCHER" bench "${common[@]}" --no-save --progress none > "$WORK/warm.out" 2>&1 || true
  declare -A cpu=()
  TAG=0
  run() { # run NAME COMMAND...: one timed run, its line printed, its CPU kept
    local name=$1; shift
    ( cd "$WORK" && /usr/bin/time -f "%U %S %e" -o "$WORK/t" "$@" > "$WORK/$name.out" 2>&1 ) &
    local pid=$!
    if [[ $THREADS == 1 && $name != vllm ]]; then
      local jpid=""
      for _ in $(seq 100); do
        for c in $(pgrep -f "infermark.fixedcosts=$TAG " || true); do
          [[ "$(cat /proc/$c/comm 2>/dev/null)" == java ]] && jpid=$c && break
        done
        [[ -n "$jpid" ]] && break; sleep 0.05
      done
      [[ -n "$jpid" ]] && python3 "$ROOT/scripts/thread-cpu.py" "$jpid" > "$WORK/$name.threads" 2>&1 || true
    fi
    wait $pid || echo "  ($name exited $?; see its output above)"
    local c w tps
    c=$(awk '{printf "%.2f", $1 + $2}' "$WORK/t"); w=$(awk '{printf "%.1f", $3}' "$WORK/t")
    tps=$(grep -m1 -i "output token throughput" "$WORK/$name.out" | awk '{print $NF}')
    printf '  %-9s CPU %6s s  wall %5s s  %s tokens/s\n' "$name" "$c" "$w" "${tps:-?}"
    [[ -s "$WORK/$name.threads" ]] && sed 's/^/      /' "$WORK/$name.threads" | head -10 && rm -f "$WORK/$name.threads"
    cpu[$name]="${cpu[$name]:-} $c"
  }
  echo "== $shape: ${lens[*]} (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  for r in $(seq "$ROUNDS"); do
    run vllm "$PEERS/run_vllm.sh" "${common[@]}" --random-range-ratio 0 --request-rate inf
    TAG=$((TAG + 1))
    run java-jar java "-Dinfermark.fixedcosts=$TAG" -jar "$JAR" bench "${common[@]}" --no-save --progress none
    TAG=$((TAG + 1))
    JAVA_OPTS="-Dinfermark.fixedcosts=$TAG" run launcher "$LAUNCHER" bench "${common[@]}" --no-save --progress none
  done
  median() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
  v=$(median "${cpu[vllm]}")
  for n in vllm java-jar launcher; do
    m=$(median "${cpu[$n]}")
    printf '  median %-9s %6.2f s CPU  (%.2fx vLLM)\n' "$n" "$m" "$(awk -v a="$m" -v b="$v" 'BEGIN {print a / b}')"
  done
  echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; SIM_PID=""
  unset cpu
done
