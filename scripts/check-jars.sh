#!/usr/bin/env bash
# Checks what a release ships, after `mvn -P release package` (or verify): every jar, sources jar and javadoc
# jar carries META-INF/LICENSE and META-INF/NOTICE, and every runnable (shaded) jar also carries the list of
# bundled components and Netty's NOTICE (Netty's own jars ship none). Exit 1 names each jar that lacks one.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
checked=0
has() { unzip -Z1 "$1" | grep -x "$2" >/dev/null; }
for jar in */target/*.jar; do
  case "$(basename "$jar")" in original-*) continue ;; esac
  checked=$((checked + 1))
  need=(META-INF/LICENSE META-INF/NOTICE)
  case "$(basename "$jar")" in
    infermark.jar|infermark-quickstart.jar|benchmarks.jar|infermark-simulator.jar)
      need+=(META-INF/licenses/THIRD-PARTY.txt META-INF/licenses/netty/NOTICE.txt) ;;
  esac
  for entry in "${need[@]}"; do
    if ! has "$jar" "$entry"; then
      echo "check-jars: $jar has no $entry" >&2
      missing=1
    fi
  done
done
if [ "$checked" -eq 0 ]; then
  echo "check-jars: no jars under */target: run mvn -P release package first" >&2
  exit 1
fi
if [ "$missing" -ne 0 ]; then
  exit 1
fi
echo "check-jars: $checked jars carry LICENSE and NOTICE"
