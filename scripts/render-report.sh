#!/usr/bin/env bash
# Renders the sample HTML report (hostile strings included) in headless Chromium and prints where the
# screenshot is, so a person can look at it. The report comes from HtmlReportTest, which writes
# metrics/target/report/report.probe.html (the report with the test's probe) and checks it in Chromium itself.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o -pl metrics -am test -Dsurefire.failIfNoSpecifiedTests=false -Dtest=HtmlReportTest
html="$PWD/metrics/target/report/report.probe.html"
png="$PWD/metrics/target/report/screenshot.png"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
  echo "no chromium found; the report is at $html (Debian: apt-get install -y chromium)" >&2
  exit 1
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=3000 --screenshot="$png" \
  --window-size="${WIDTH:-1400},${HEIGHT:-4200}" "file://$html" >/dev/null 2>&1
echo "report:     $html"
echo "screenshot: $png"
