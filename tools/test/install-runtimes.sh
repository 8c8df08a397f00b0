#!/usr/bin/env bash
# Installs n8n runtimes one after the other (tools/n8n-runtime/install.sh --n8n <major>, cached
# when complete), at low priority, for tools/test/all.sh, which runs this in the background while
# its checks run:   install-runtimes.sh <log dir> <major>...
# For each major it writes <log dir>/n8n<major>.log (the installer's output), .seconds (how long it
# took) and, last, .rc (its exit code): all.sh waits for that file.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs="$1"
shift
for major in "$@"; do
	t0=$(date +%s)
	CI=true nice -n 10 bash tools/n8n-runtime/install.sh --n8n "$major" >"$logs/n8n$major.log" 2>&1 </dev/null
	rc=$?
	echo "$(($(date +%s) - t0))" >"$logs/n8n$major.seconds"
	echo "$rc" >"$logs/n8n$major.rc"
done
