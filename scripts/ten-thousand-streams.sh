#!/usr/bin/env bash
# ten-thousand-streams.sh — 10,000 concurrent streams in one client process, one token per second each, every
# record retained, in a 1 GiB heap; the measurement behind docs/client-capacity-and-health.md ("10,000 streams").
#
# Starts the standalone simulator in its own JVM (fixed timing: 25 ms TTFT, then one token a second; TOKENS tokens a
# request; no concurrency limit beyond 20,000), then io.infermark.benchmarks.ManyStreams with -Xmx1g and the
# launcher's collector (Shenandoah where the Java has it): the streams join over RAMP seconds (a user ramp, so their
# tokens arrive spread over each second), hold for HOLD seconds, and drain. It prints the records by outcome, CPU,
# heap, the client's health, the GC pauses of the whole process, and one VERDICT line:
#   every_record_kept (one record per issued request, indices 0..n-1), all_succeeded, heap_peak_mib and
#   heap_within_xmx (the heap pools' peaks summed: an upper bound), longest_gc_pause_ms and gc_pauses_within_10ms
#   (stop-the-world pauses from the collectors' notifications, 1 ms resolution), and the run's health verdict with
#   its error bound (what the client could still measure).
#
# Needs two file descriptors per stream across the two processes (ulimit -n of 10,000 + a few hundred each).
# Usage: scripts/ten-thousand-streams.sh [--streams 10000] [--hold 60] [--ramp 20] [--tokens 20] [--port 18000]
#        [--skip-build] [--gc "-XX:+UseShenandoahGC"]
# A measurement, not a test: both processes share the machine; quote the load average it prints.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
STREAMS=10000
HOLD=60
RAMP=20
TOKENS=20
PORT=18000
BUILD=1
GC=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --streams) STREAMS="$2"; shift 2 ;;
    --hold) HOLD="$2"; shift 2 ;;
    --ramp) RAMP="$2"; shift 2 ;;
    --tokens) TOKENS="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --skip-build) BUILD=0; shift ;;
    --gc) GC="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ $BUILD == 1 ]]; then
  (cd "$ROOT" && mvn -B -ntp -q -pl benchmarks-jmh -am package -DskipTests)
fi
SIM_JAR="$ROOT/testkit/target/infermark-simulator.jar"
BENCH_JAR="$ROOT/benchmarks-jmh/target/benchmarks.jar"
[[ -f "$SIM_JAR" && -f "$BENCH_JAR" ]] || { echo "build first (or drop --skip-build)" >&2; exit 2; }
if [[ -z "$GC" ]]; then
  if java -XX:+UseShenandoahGC -version > /dev/null 2>&1; then GC=-XX:+UseShenandoahGC; else GC=-XX:+UseZGC; fi
fi
need=$((STREAMS + 512))
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt $need ]]; then
  ulimit -n "$need" 2>/dev/null || { echo "ulimit -n is $(ulimit -n); $STREAMS streams need $need" >&2; exit 2; }
fi

LOG=$(mktemp /tmp/infermark-sim-10k.XXXXXX.log)
java "$GC" -jar "$SIM_JAR" --port "$PORT" --profile fixed --ttft-ms 25 --itl-ms 1000 --output-tokens "$TOKENS" \
  --max-concurrency 20000 --timeline-retention 1000 > "$LOG" 2>&1 &
SIM_PID=$!
trap 'kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/health" > /dev/null || { echo "the simulator did not start; see $LOG" >&2; exit 1; }

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $STREAMS streams joining over $RAMP s, held" \
  "$HOLD s, $TOKENS tokens a request at 1 token/s; client -Xmx1g $GC"
java -Xmx1g "$GC" -cp "$BENCH_JAR" io.infermark.benchmarks.ManyStreams "http://127.0.0.1:$PORT" "$STREAMS" "$HOLD" \
  "$TOKENS" netty "$RAMP" 2>&1 | grep -v '^SLF4J'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
