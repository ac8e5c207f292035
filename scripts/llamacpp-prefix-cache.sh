#!/usr/bin/env bash
# llamacpp-prefix-cache.sh — the same prompts sent twice to a real llama.cpp server: what its prompt (KV) cache
# serves, what infermark counts, and whether the two agree. Produces the table in docs/prefix-cache.md.
#
# What it does:
#   1. builds llama.cpp's llama-server and the tiny random-weight model with the kit in $KIT (shared/llamacpp:
#      setup.sh, idempotent; 6-13 min the first time on 2 cores) and starts a fresh server on $PORT (4 slots,
#      prompt caching on, as llama.cpp ships), so its cache is empty;
#   2. writes $N prompts of $WORDS words each (distinct texts, seeded) as two JSONL files: turn 0 and turn 1 of
#      $N two-turn "sessions" whose turn 1 repeats turn 0's prompt word for word (tags session, turn);
#   3. runs `infermark bench` twice on the server's OpenAI chat endpoint, turn 0 then turn 1 (closed loop of
#      $CONCURRENCY, --ignore-eos, $OUT_TOKENS output tokens, no test request so the server's counters see only
#      measured requests), scraping its /metrics during each run (--scrape-metrics);
#   4. reads llama.cpp's own counters before and after each run (llamacpp:prompt_tokens_total counts the prompt
#      tokens it computed, i.e. not served from cache; llamacpp:tokens_predicted_total the generated ones) and
#      checks that the run's counts equal them: sum(prompt - cached) over the run = delta prompt_tokens_total,
#      total output tokens = delta tokens_predicted_total;
#   5. prints one markdown table row per run: cached / prompt tokens, hit ratio, the ideal ratio of the run's own
#      prompts, TTFT p50 and p99, the client - server gap (TTFT - timings.prompt_ms), the server check, the client's
#      health verdict with its measurement floor, and the machine's load average when the run started.
#
# Env: KIT (../shared/llamacpp beside the checkout), LC (/tmp/infermark-llamacpp), PORT (8092), N (20 prompts), WORDS (300),
#      OUT_TOKENS (16), CONCURRENCY (4), JAR (cli/target/infermark.jar, built with
#      `mvn -B -o -pl cli -am package -DskipTests` if absent), OUT (target/llamacpp-prefix-cache).
# Needs: JDK 17+, python3, curl.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=${KIT:-$(cd "$(dirname "$0")/../.." && pwd)/shared/llamacpp}
export LC=${LC:-/tmp/infermark-llamacpp}
PORT=${PORT:-8092}
N=${N:-20}
WORDS=${WORDS:-300}
OUT_TOKENS=${OUT_TOKENS:-16}
CONCURRENCY=${CONCURRENCY:-4}
JAR=${JAR:-$ROOT/cli/target/infermark.jar}
OUT=${OUT:-$ROOT/target/llamacpp-prefix-cache}
BASE=http://127.0.0.1:$PORT
mkdir -p "$OUT"

if [ ! -f "$JAR" ]; then
  (cd "$ROOT" && mvn -B -q -o -pl cli -am package -DskipTests)
fi
SMALL=${SMALL:-0} bash "$KIT/setup.sh"
# A fresh server: its prompt cache starts empty.
PORT=$PORT bash "$KIT/stop-server.sh" >/dev/null 2>&1 || true
PORT=$PORT bash "$KIT/start-server.sh"
trap 'PORT=$PORT bash "$KIT/stop-server.sh" >/dev/null 2>&1 || true' EXIT

python3 - "$OUT" "$N" "$WORDS" <<'EOF'
import json, random, sys
out, n, words = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
vocab = ("time person year way day thing man world life hand part child eye woman place work week case point "
         "government company number group problem fact water room mother area money story month lot right study "
         "book job word business issue side kind head house service friend father power hour game line end member "
         "law car city community name president team minute idea kid body information back parent face others "
         "level office door health art war history party result change morning reason research girl guy moment "
         "air teacher force education").split()
rng = random.Random(29)
prompts = [" ".join(rng.choice(vocab) for _ in range(words)) for _ in range(n)]
for turn in (0, 1):
    with open(f"{out}/turn{turn}.jsonl", "w") as f:
        for i, p in enumerate(prompts):
            f.write(json.dumps({"prompt": f"Session {i}. {p}", "session": f"s{i}", "turn": str(turn)}) + "\n")
EOF

counter() { # counter NAME: the server's counter, 0 when absent
  curl -s -m 60 "$BASE/metrics" | awk -v n="llamacpp:$1" '$1 == n {print $2; found=1} END {if (!found) print 0}'
}

echo "| run | requests reporting | cached / prompt tokens (server's) | hit ratio | ideal (this run's prompts) | TTFT p50 / p99 (ms) | TTFT - prompt_ms p50 (ms) | counts = server's /metrics | client verdict (floor) | load avg (1 min) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for turn in 0 1; do
  prompt_before=$(counter prompt_tokens_total)
  predicted_before=$(counter tokens_predicted_total)
  load=$(cut -d' ' -f1 /proc/loadavg)
  java -jar "$JAR" bench --backend openai-chat --base-url "$BASE" --endpoint /v1/chat/completions \
    --model tiny-llama --dataset-name jsonl --dataset-path "$OUT/turn$turn.jsonl" --num-prompts "$N" \
    --max-tokens "$OUT_TOKENS" --ignore-eos --max-concurrency "$CONCURRENCY" --skip-test-request \
    --scrape-metrics "$BASE/metrics" --result-dir "$OUT" --result-filename "turn$turn.json" --progress none \
    > "$OUT/turn$turn.out" 2>&1 || { cat "$OUT/turn$turn.out"; exit 1; }
  prompt_after=$(counter prompt_tokens_total)
  predicted_after=$(counter tokens_predicted_total)
  python3 - "$OUT/turn$turn.infermark.json" "$OUT/turn$turn.json" "$turn" "$load" \
      "$prompt_before" "$prompt_after" "$predicted_before" "$predicted_after" <<'EOF'
import json, sys
report, vllm = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
turn, load = sys.argv[3], sys.argv[4]
pb, pa, db, da = (float(x) for x in sys.argv[5:9])
c = report["prefix_cache"]
ttft = report["latency"]["ttft_ms"]
gap = report.get("client_minus_server", {}).get("ttft_minus_server_prefill_ms", {})
computed = c["prompt_tokens"] - c["cached_tokens"]
output = vllm["total_output_tokens"]
agree = computed == pa - pb and output == da - db
check = (f"yes: computed prompt {computed} = {pa - pb:.0f}, output {output} = {da - db:.0f}" if agree else
         f"NO: computed prompt {computed} vs {pa - pb:.0f}, output {output} vs {da - db:.0f}")
name = "1st (cold cache)" if turn == "0" else "2nd (same prompts)"
health = report["client_health"]
print(f"| {name} | {c['reporting_requests']} of {c['requests']} | {c['cached_tokens']:,} / {c['prompt_tokens']:,} | "
      f"{100 * c['hit_ratio']:.1f} % | {100 * c['ideal_hit_ratio']:.1f} % | {ttft['p50']:.1f} / {ttft['p99']:.1f} | "
      f"{gap.get('p50', float('nan')):.2f} | {check} | {health['verdict']} ({health['floor_ms']:.1f} ms) | {load} |")
if not agree:
    sys.exit(3)
EOF
done
echo
echo "Console summaries, JSON and HTML reports: $OUT (turn0.*, turn1.*)"
