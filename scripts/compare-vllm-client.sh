#!/usr/bin/env bash
# compare-vllm-client.sh — infermark's client against vLLM's own benchmark client, on one machine,
# on the same standalone simulator, the same prompts and the same concurrency.
#
# What it does, for each concurrency level (default 64 and 256) and each protocol (default http1 and h2c; vLLM's
# client speaks only HTTP/1.1, so over h2c infermark runs alone against the floor):
#   1. writes N x PER_STREAM random prompts of 100–1,900 words (vLLM's RandomDataset, seed 0,
#      --random-input-len 1000 --random-range-ratio 0.9; output lengths 256 x [0.1, 1.9]) as JSONL,
#      so both clients send byte-for-byte the same prompt texts and ask for the same output lengths;
#   2. starts the simulator in its own JVM (testkit/target/infermark-simulator.jar, profile `fixed`:
#      25 ms TTFT, 10 ms between tokens, no concurrency limit; `--protocol h2c` for h2c, a fresh one per
#      protocol) and warms it up (JIT) with 2N requests from each client, not measured, so neither measured run
#      pays for the simulator's compilation;
#   3. runs vLLM's client (shared/peers/vllm-bench, `benchmark_serving.py`: one Python asyncio +
#      aiohttp process) with --max-concurrency N --request-rate inf --ignore-eos (HTTP/1.1 only);
#   4. runs infermark's client in its own JVM against the same simulator
#      (io.infermark.benchmarks.PeerRun: OpenAiTarget.chat + Benchmark, LoadProfile.concurrency(N); over h2c
#      with -Dinfermark.transport=netty-h2c: NettyTransport with HttpVersionPolicy.HTTP_2, prior knowledge),
#      after a warm-up of 4N requests off the clock at the start of the same run, so its measured window
#      is the closed loop's steady state (vLLM's client has no such warm-up: its measured run starts with
#      N requests sent at once, and the simulator's own TTFT shows that burst);
#   5. prints, for both: streamed tokens/s, client CPU µs per streamed token, the simulator's CPU µs
#      per streamed token, and client-added TTFT;
#   6. measures the floor: the bare selector reader of SimulatorWriteCost (N streams, a 230-byte chunk
#      to each every 10 ms, as the simulator's fixed profile writes; one thread reading every socket
#      through one selector, nothing else), FLOOR_RUNS times in a row after the two clients, and at the
#      end prints a table, one row per level and protocol: the floor's median with its spread (min-max), each
#      client's CPU per streamed token and its ratio to that median (infermark/floor, vLLM/floor; "-" for vLLM
#      over h2c), and the part of infermark's that its JIT compiler threads spent in the measured window with the
#      ratio net of it (a short run is still compiling; a long one amortises it; the total is the figure). The floor is the same for both protocols: what reading N sockets with 230-byte chunks costs at
#      all, below any protocol; HTTP/2's framing (a 9-byte frame header per DATA frame, WINDOW_UPDATEs) is the
#      client's cost, so it counts in the h2c row.
#
# How it measures:
#   - CPU is read from /proc/<pid>/stat (utime + stime) of the client process and of the simulator at
#     the moment each client starts its measured run and when it ends (vLLM: "Starting main benchmark
#     run" .. "Serving Benchmark Result"; PeerRun: "MEASURE start" .. "MEASURE end"), so start-up,
#     prompt generation and warm-up are left out for both; 10 ms resolution. /usr/bin/time -v gives the
#     whole-process figure beside it. The simulator's CPU is split into its own threads (infermark-sim-*,
#     from /proc/<pid>/task) and the JVM's (JIT compilers, GC); of infermark's client CPU, the part its JIT compiler
#     threads spent in the measured window is printed beside it (a short run still compiles). Streamed tokens are the simulator's own count
#     (vllm:generation_tokens_total on /metrics) over the same interval.
#   - Client-added TTFT: for infermark, per request, client TTFT (send -> first token read) minus the
#     simulator's ground truth (arrival -> first token handed to the socket), joined by X-Request-Id
#     through GET /simulator/timelines?since=N (over h2c PeerRun reads it over h2c too, on a transport of its own,
#     and the script's curl uses --http2-prior-knowledge). vLLM sends no request id, so for it (and, for
#     comparison, for infermark too) the distributions are compared: client TTFT p50/p99 minus the
#     simulator's TTFT p50/p99 over the same requests.
#   - vLLM's TTFT is its own (first chunk with non-empty choices: the role chunk, which the simulator
#     writes together with the first token).
#
# Requirements: JDK 17+, Maven (offline is fine once dependencies are cached), curl, and for vLLM's
# client: apt-get update && apt-get install -y python3-aiohttp python3-numpy python3-tqdm
# (it runs /usr/bin/python3, see shared/peers/vllm-bench/README.md).
#
# Usage: scripts/compare-vllm-client.sh [--concurrency "64 256"] [--per-stream 8] [--output-len 256]
#        [--port 8123] [--peers DIR] [--skip-build] [--out DIR] [--sim-jar JAR] [--transport netty|okhttp]
#        [--floor-runs 5] [--floor-seconds 8] [--protocols "http1 h2c"]
#   --per-stream K   prompts per stream: each level sends N x K requests (default 8: ~20 s a run)
#   --peers DIR      where vllm-bench lives (default: ../shared/peers/vllm-bench from the repository,
#                    or /work/shared/peers/vllm-bench)
#   --out DIR        keep prompts, logs and vLLM's result JSON there (default: a temporary directory)
#   --sim-jar JAR    another build of the simulator (e.g. an older commit's, to compare its CPU per token)
#   --transport T    infermark's transport over HTTP/1.1: netty (default, the event loop) or okhttp (h2c is always
#                    Netty's: netty-h2c)
#   --protocols P    the protocols to run, in order: http1 and/or h2c (default "http1 h2c"); vLLM's client runs
#                    only with http1
#   --floor-runs K   runs of the bare reader per level (default 5; its median is the floor, min-max its spread;
#                    0 leaves the floor out)
#   --floor-seconds S  seconds each bare-reader run measures (default 8)
# A measurement, not a test: both clients share the machine with the simulator (and anything else
# running), so say what the load average was when you quote the figures; the script prints it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LEVELS="64 256"
PER_STREAM=8
OUTPUT_LEN=256
PORT=8123
BUILD=1
OUT=""
PEERS=""
SIM_JAR_ARG=""
TRANSPORT=netty
FLOOR_RUNS=5
FLOOR_SECONDS=8
PROTOCOLS="http1 h2c"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --concurrency) LEVELS="$2"; shift 2 ;;
    --per-stream) PER_STREAM="$2"; shift 2 ;;
    --output-len) OUTPUT_LEN="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --peers) PEERS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --skip-build) BUILD=0; shift ;;
    --sim-jar) SIM_JAR_ARG="$2"; shift 2 ;;
    --transport) TRANSPORT="$2"; shift 2 ;;
    --floor-runs) FLOOR_RUNS="$2"; shift 2 ;;
    --floor-seconds) FLOOR_SECONDS="$2"; shift 2 ;;
    --protocols) PROTOCOLS="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for P in $PROTOCOLS; do
  [[ "$P" == http1 || "$P" == h2c ]] || { echo "--protocols takes http1 and/or h2c, not $P" >&2; exit 2; }
done
[[ -n "${PROTOCOLS// /}" ]] || { echo "--protocols needs http1 and/or h2c" >&2; exit 2; }
if [[ -z "$PEERS" ]]; then
  for d in "$ROOT/../shared/peers/vllm-bench" "/work/shared/peers/vllm-bench"; do
    [[ -f "$d/benchmark_serving.py" ]] && PEERS=$(cd "$d" && pwd) && break
  done
fi
[[ -n "$PEERS" && -f "$PEERS/benchmark_serving.py" ]] || { echo "vllm-bench not found; pass --peers DIR" >&2; exit 2; }
PY=/usr/bin/python3
if ! "$PY" -c 'import aiohttp, numpy, tqdm' 2>/dev/null; then
  echo "vLLM's client needs: apt-get update && apt-get install -y python3-aiohttp python3-numpy python3-tqdm" >&2
  exit 2
fi
if [[ -z "$OUT" ]]; then OUT=$(mktemp -d /tmp/infermark-vs-vllm.XXXXXX); fi
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

if [[ $BUILD == 1 ]]; then
  (cd "$ROOT" && mvn -B -ntp -q -pl benchmarks-jmh -am package -DskipTests)
fi
SIM_JAR="${SIM_JAR_ARG:-$ROOT/testkit/target/infermark-simulator.jar}"
BENCH_JAR="$ROOT/benchmarks-jmh/target/benchmarks.jar"
[[ -f "$SIM_JAR" && -f "$BENCH_JAR" ]] || { echo "build first (or drop --skip-build)" >&2; exit 2; }
BASE="http://127.0.0.1:$PORT"
HZ=$(getconf CLK_TCK)

SIM_PID=""
cleanup() {
  if [[ -n "$SIM_PID" ]]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi
  SIM_PID=""
}
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# CPU ticks of the simulator's own threads (infermark-sim-*: clock, engine, writer, selector, handlers),
# as against the JVM's (JIT compilers, GC, VM thread), which a longer run amortises.
sim_thread_ticks() {
  local total=0 comm rest
  for t in /proc/"$1"/task/*; do
    comm=$(cat "$t/comm" 2>/dev/null) || continue
    [[ "$comm" == infermark-sim* ]] || continue
    rest=$(sed 's/^.*) //' "$t/stat" 2>/dev/null) || continue
    set -- $rest
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}
# CPU ticks of a JVM's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre"), alive at the moment of reading
# (infermark's measured run keeps them alive with -XX:-UseDynamicNumberOfCompilerThreads, so that the difference of
# two readings is all of their CPU).
jit_ticks() {
  local total=0 comm rest
  for t in /proc/"$1"/task/*; do
    comm=$(cat "$t/comm" 2>/dev/null) || continue
    [[ "$comm" == C[12]\ Compiler* ]] || continue
    rest=$(sed 's/^.*) //' "$t/stat" 2>/dev/null) || continue
    set -- $rest
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}
CURL_H2=() # --http2-prior-knowledge while an h2c simulator runs (it speaks only HTTP/2)
sim_tokens() { curl -sf "${CURL_H2[@]}" "$BASE/metrics" | awk '/^vllm:generation_tokens_total/ {printf "%d", $2}'; }
next_sequence() { curl -sf "${CURL_H2[@]}" "$BASE/simulator/timelines?since=9223372036854775807" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["next_sequence"])'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

start_sim() { # name protocol
  # HTTP/1.1 is the simulator's default: no --protocol then, so an older --sim-jar without the option still runs
  local proto=()
  if [[ $2 == h2c ]]; then CURL_H2=(--http2-prior-knowledge); proto=(--protocol h2c); else CURL_H2=(); fi
  java -jar "$SIM_JAR" --port "$PORT" --profile fixed --ttft-ms 25 --itl-ms 10 "${proto[@]}" > "$OUT/sim-$1.log" 2>&1 &
  SIM_PID=$!
  for _ in $(seq 100); do curl -sf "${CURL_H2[@]}" "$BASE/health" > /dev/null && return 0; sleep 0.1; done
  echo "the simulator did not start; see $OUT/sim-$1.log" >&2; exit 1
}

# Reads a client's output line by line; at START and END markers snapshots CPU of client and simulator,
# simulator tokens and (at START) the simulator's next request sequence. Sets M_* variables.
measure_client() { # name start-marker end-marker command...
  local name=$1 start=$2 end=$3; shift 3
  local log="$OUT/$name.log"
  : > "$log"
  M_CLIENT_CPU0=0; M_CLIENT_CPU1=0; M_SIM_CPU0=0; M_SIM_CPU1=0; M_TOK0=0; M_TOK1=0; M_SINCE=0
  M_SIMT0=0; M_SIMT1=0; M_JIT0=0; M_JIT1=0
  M_LOAD0=$(loadavg)
  M_SINCE=$(next_sequence) # the first request the client sends from now on
  if [[ -x /usr/bin/time ]]; then
    exec {fd}< <(exec /usr/bin/time -v -o "$OUT/$name.time" "$@" 2>&1)
  else # no GNU time: the whole-process figure is left out (the measured-run figures need only /proc)
    : > "$OUT/$name.time"
    exec {fd}< <(exec "$@" 2>&1)
  fi
  local tpid=$!
  local cpid=""
  while IFS= read -r line <&"$fd"; do
    echo "$line" >> "$log"
    if [[ -z "$cpid" ]]; then
      if [[ -x /usr/bin/time ]]; then cpid=$(pgrep -P "$tpid" | head -1 || true); else cpid=$tpid; fi
    fi
    if [[ "$line" == *"$start"* ]]; then
      # the client's JIT threads first, beside its CPU: PeerRun may exit soon after its end marker
      M_CLIENT_CPU0=$(cpu_ticks "$cpid"); M_JIT0=$(jit_ticks "$cpid")
      M_SIM_CPU0=$(cpu_ticks "$SIM_PID"); M_TOK0=$(sim_tokens)
      M_SIMT0=$(sim_thread_ticks "$SIM_PID")
      M_T0=$(date +%s.%N)
    elif [[ "$line" == *"$end"* ]]; then
      # the client's JIT threads first, beside its CPU: PeerRun may exit soon after its end marker
      M_CLIENT_CPU1=$(cpu_ticks "$cpid"); M_JIT1=$(jit_ticks "$cpid")
      M_SIM_CPU1=$(cpu_ticks "$SIM_PID"); M_TOK1=$(sim_tokens)
      M_SIMT1=$(sim_thread_ticks "$SIM_PID")
      M_T1=$(date +%s.%N)
    fi
  done
  exec {fd}<&-
  wait "$tpid" 2>/dev/null || true
  M_LOAD1=$(loadavg)
  M_WHOLE=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$OUT/$name.time")
  if [[ -z "$cpid" || "$M_CLIENT_CPU1" == 0 ]]; then
    echo "  $name: the client's measured run was not seen (no start/end marker); see $log" >&2
  fi
}

report() { # name tps-from-client extra-lines; sets R_PER_TOKEN (client CPU us per streamed token)
  local name=$1 tps=$2
  local tokens=$((M_TOK1 - M_TOK0))
  R_PER_TOKEN=$(awk -v c="$((M_CLIENT_CPU1 - M_CLIENT_CPU0))" -v hz="$HZ" -v t="$tokens" \
    'BEGIN {if (t < 1) t = 1; printf "%.2f", c / hz * 1e6 / t}')
  R_JIT_PER_TOKEN=$(awk -v c="$((M_JIT1 - M_JIT0))" -v hz="$HZ" -v t="$tokens" \
    'BEGIN {if (t < 1) t = 1; if (c < 0) c = 0; printf "%.2f", c / hz * 1e6 / t}')
  "$PY" - "$name" "$tps" "$tokens" "$((M_CLIENT_CPU1 - M_CLIENT_CPU0))" "$((M_SIM_CPU1 - M_SIM_CPU0))" "$HZ" \
      "$M_WHOLE" "$M_LOAD0" "$M_LOAD1" "$((M_SIMT1 - M_SIMT0))" "$((M_JIT1 - M_JIT0))" "$M_JIT0" <<'EOF'
import sys
name, tps, tokens, cticks, sticks, hz, whole, l0, l1, stticks, jticks, jit0 = sys.argv[1:]
tokens = max(1, int(tokens)); hz = float(hz)
c = int(cticks) / hz; s = int(sticks) / hz; st = int(stticks) / hz
print(f"  {name}: {float(tps):,.0f} streamed tokens/s; {tokens} tokens in the measured run")
print(f"    client CPU {c:.2f} s = {c * 1e6 / tokens:.2f} us per streamed token "
      f"(whole process incl. start-up: {float(whole):.2f} s = {float(whole) * 1e6 / tokens:.2f} us)")
if int(jticks) > 0:
    j = int(jticks) / hz
    print(f"      of which its JIT compiler threads {j:.2f} s = {j * 1e6 / tokens:.2f} us per streamed token "
          f"(still compiling in the measured window; the rest {(c - j) * 1e6 / tokens:.2f} us)")
elif int(jit0) > 0:
    print(f"      its JIT compiler threads: {int(jticks)} ticks in the measured window (read {jit0} at its start)")
print(f"    simulator CPU {s:.2f} s = {s * 1e6 / tokens:.2f} us per streamed token: its own threads "
      f"{st * 1e6 / tokens:.2f} us + JVM (JIT, GC) {(s - st) * 1e6 / tokens:.2f} us")
print(f"    load average before {l0}, after {l1}")
EOF
}

ttft_from_timelines() { # since client-ttfts-json-file -> prints comparison
  curl -sf "${CURL_H2[@]}" "$BASE/simulator/timelines?since=$1" > "$OUT/timelines.json"
  "$PY" - "$OUT/timelines.json" "$2" <<'EOF'
import json, sys
import numpy as np
sim = [t["first_token_ms"] for t in json.load(open(sys.argv[1]))["timelines"] if "first_token_ms" in t]
client = json.load(open(sys.argv[2]))
if not sim or not client:
    print("    TTFT: no values"); sys.exit()
c50, c99 = np.percentile(client, [50, 99]); s50, s99 = np.percentile(sim, [50, 99])
print(f"    TTFT client p50 {c50:.2f} ms, p99 {c99:.2f} ms; simulator p50 {s50:.2f} ms, p99 {s99:.2f} ms "
      f"(n={len(client)}/{len(sim)})")
print(f"    client-added TTFT (distributions): p50 {c50 - s50:.2f} ms, p99 {c99 - s99:.2f} ms")
EOF
}

# The bare reader's CPU per chunk at N streams, FLOOR_RUNS runs; one value per line.
floor_runs() { # N
  local i
  for i in $(seq "$FLOOR_RUNS"); do
    java -cp "$BENCH_JAR" io.infermark.benchmarks.SimulatorWriteCost "$1" "$FLOOR_SECONDS" 10 230 jdk-nio \
      > "$OUT/floor-$1-$i.log" 2>&1 || { echo "SimulatorWriteCost failed; see $OUT/floor-$1-$i.log" >&2; continue; }
    sed -n 's/.*bare selector reader CPU \([0-9.]*\) us per chunk.*/\1/p' "$OUT/floor-$1-$i.log"
  done
}
declare -A FLOOR_VALUES INFERMARK_US INFERMARK_JIT_US VLLM_US LEVEL_LOAD

echo "infermark vs vLLM's benchmark client: simulator profile fixed (TTFT 25 ms, ITL 10 ms), prompts of"
echo "100-1,900 words, output ${OUTPUT_LEN} x [0.1, 1.9] tokens with ignore_eos; $(nproc) cores, $(java -version 2>&1 | head -1)"
echo "outputs in $OUT"
for N in $LEVELS; do
  COUNT=$((N * PER_STREAM))
  PROMPTS="$OUT/prompts-$N.jsonl"
  "$PY" - "$PEERS" "$COUNT" "$OUTPUT_LEN" "$PROMPTS" <<'EOF'
import json, random, sys
peers, n, out_len, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path[:0] = [peers + "/shims", peers]
import numpy as np
from benchmark_dataset import RandomDataset
from transformers import AutoTokenizer
# As benchmark_serving.main does with --seed 0 before sampling, so vLLM's run draws the same prompts.
random.seed(0); np.random.seed(0)
reqs = RandomDataset(dataset_path=None).sample(tokenizer=AutoTokenizer.from_pretrained("shim"), num_requests=n,
    prefix_len=0, input_len=1000, output_len=out_len, range_ratio=0.9)
with open(path, "w") as f:
    for r in reqs:
        f.write(json.dumps({"prompt": r.prompt, "output_tokens": r.expected_output_len}) + "\n")
EOF
  echo
  echo "== concurrency $N, $COUNT requests"

  for P in $PROTOCOLS; do
    # HTTP/1.1 keeps the file names it always had; h2c's carry "-h2c".
    if [[ $P == h2c ]]; then SFX=-h2c; PEER_TRANSPORT=netty-h2c; else SFX=""; PEER_TRANSPORT=$TRANSPORT; fi
    echo "  -- $P"
    start_sim "$N$SFX" "$P"
    java -Dinfermark.transport="$PEER_TRANSPORT" -cp "$BENCH_JAR" io.infermark.benchmarks.PeerRun --url "$BASE/v1" --model infermark-sim \
      --prompts "$PROMPTS" --concurrency "$N" --warmup 0 --requests $((2 * N)) > "$OUT/sim-warmup-$N$SFX.log" 2>&1
    if [[ $P == http1 ]]; then
      VLLM_ARGS=(--backend openai-chat --base-url "$BASE" --endpoint /v1/chat/completions --model infermark-sim
        --dataset-name random --random-input-len 1000 --random-output-len "$OUTPUT_LEN" --random-range-ratio 0.9
        --ignore-eos --request-rate inf --max-concurrency "$N" --seed 0 --disable-tqdm)
      "$PEERS/run_vllm.sh" "${VLLM_ARGS[@]}" --num-prompts $((2 * N)) >> "$OUT/sim-warmup-$N.log" 2>&1
      measure_client "vllm-$N" "Starting main benchmark run" "Serving Benchmark Result" \
        "$PEERS/run_vllm.sh" "${VLLM_ARGS[@]}" --num-prompts "$COUNT" \
        --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 --save-result --save-detailed --result-dir "$OUT" --result-filename "vllm-$N.json"
      VTPS=$(awk -F': *' '/Output token throughput/ {print $2}' "$OUT/vllm-$N.log" | tr -d ' ')
      report "vLLM benchmark_serving" "${VTPS:-0}"
      VLLM_US[$N $P]=$R_PER_TOKEN
      LEVEL_LOAD[$N $P]="$M_LOAD0"
      "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); json.dump([t*1000 for t in r["ttfts"] if t > 0], open(sys.argv[2],"w"))' \
        "$OUT/vllm-$N.json" "$OUT/vllm-$N-ttft.json"
      ttft_from_timelines $((M_SINCE + 1)) "$OUT/vllm-$N-ttft.json" # after vLLM's single test request
    else
      echo "  vLLM benchmark_serving: not run (it speaks HTTP/1.1 only, through aiohttp)"
    fi

    measure_client "infermark-$N$SFX" "MEASURE start" "MEASURE end" \
      java -XX:-UseDynamicNumberOfCompilerThreads -Dinfermark.transport="$PEER_TRANSPORT" -cp "$BENCH_JAR" io.infermark.benchmarks.PeerRun --url "$BASE/v1" --model infermark-sim \
      --prompts "$PROMPTS" --concurrency "$N" --warmup $((4 * N))
    RESULT=$(grep '^RESULT ' "$OUT/infermark-$N$SFX.log" || true)
    ITPS=$(sed -n 's/.* tps=\([0-9.]*\).*/\1/p' <<< "$RESULT")
    report "infermark PeerRun ($P)" "${ITPS:-0}"
    INFERMARK_US[$N $P]=$R_PER_TOKEN
    INFERMARK_JIT_US[$N $P]=$R_JIT_PER_TOKEN
    [[ $P == http1 ]] || LEVEL_LOAD[$N $P]="$M_LOAD0"
    "$PY" - "$RESULT" <<'EOF'
import sys
kv = dict(p.split("=", 1) for p in sys.argv[1].split()[1:] if "=" in p)
if int(kv.get("joined", "0")) > 0:
    print(f"    client-added TTFT (per request, joined by X-Request-Id): p50 {float(kv['added_ttft_p50']):.2f} ms, "
          f"p99 {float(kv['added_ttft_p99']):.2f} ms, max {float(kv['added_ttft_max']):.2f} ms; "
          f"read side (client read - server write, one clock) p50 {float(kv['read_side_p50']):.2f} ms, "
          f"p99 {float(kv['read_side_p99']):.2f} ms")
    print(f"    TTFT client p50 {float(kv['ttft_p50']):.2f} ms, p99 {float(kv['ttft_p99']):.2f} ms; simulator p50 "
          f"{float(kv['sim_ttft_p50']):.2f} ms, p99 {float(kv['sim_ttft_p99']):.2f} ms")
    print(f"    client-added TTFT (distributions): p50 {float(kv['ttft_p50']) - float(kv['sim_ttft_p50']):.2f} ms, "
          f"p99 {float(kv['ttft_p99']) - float(kv['sim_ttft_p99']):.2f} ms")
else:
    print("    no ground truth joined (see the PeerRun log)")
EOF
    cleanup
  done
  if [[ $FLOOR_RUNS -gt 0 ]]; then
    echo "  floor: SimulatorWriteCost $N $FLOOR_SECONDS 10 230 jdk-nio, $FLOOR_RUNS runs (load $(loadavg))"
    FLOOR_VALUES[$N]=$(floor_runs "$N" | tr '\n' ' ')
    echo "    bare reader CPU per chunk: ${FLOOR_VALUES[$N]}us (load after $(loadavg))"
  fi
done

if [[ $FLOOR_RUNS -gt 0 ]]; then
  echo
  echo "== client CPU per streamed token against the floor (the bare selector reader, median of $FLOOR_RUNS runs)"
  printf '%-8s | %-6s | %-34s | %-22s | %-24s | %-22s | %s\n' "streams" "proto" "floor us/chunk: median (min-max)" \
    "infermark us/token (x)" "of it JIT; net of JIT (x)" "vLLM us/token (x)" "load before the run"
  for N in $LEVELS; do
    for P in $PROTOCOLS; do
    "$PY" - "$N" "$P" "${FLOOR_VALUES[$N]:-}" "${INFERMARK_US[$N $P]:-0}" "${VLLM_US[$N $P]:--}" \
      "${LEVEL_LOAD[$N $P]:-n/a}" "${INFERMARK_JIT_US[$N $P]:-0}" <<'EOF'
import statistics, sys
n, proto, values, inf, vllm, load, jit = sys.argv[1:]
v = [float(x) for x in values.split()]
inf, jit = float(inf), float(jit)
if not v:
    vl = "-" if vllm == "-" else f"{float(vllm):.2f}"
    print(f"{n:<8} | {proto:<6} | {'no floor measured':<34} | {inf:<22.2f} | {f'{jit:.2f}; {inf - jit:.2f}':<24} | "
          f"{vl:<22} | {load}")
    sys.exit()
m = statistics.median(v)
floor = f"{m:.2f} ({min(v):.2f}-{max(v):.2f}, +-{(max(v) - min(v)) / 2 / m * 100:.0f} %)"
vl = "- (no h2c client)" if vllm == "-" else f"{float(vllm):.2f} ({float(vllm) / m:.2f}x)"
net = f"{jit:.2f}; {inf - jit:.2f} ({(inf - jit) / m:.2f}x)"
print(f"{n:<8} | {proto:<6} | {floor:<34} | {f'{inf:.2f} ({inf / m:.2f}x)':<22} | {net:<24} | {vl:<22} | {load}")
EOF
    done
  done
fi
