#!/usr/bin/env bash
# `npm run test:all`, the README's test command and the whole of CI: installs the Debian packages
# the suites need (when missing and when it can; otherwise it stops at once with the command to
# run), builds the package once, then runs every suite against that build:
#   checks  format, lint, types, package contents, the jest suites (sandbox over loopback)
#   e2e     the examples, the trigger and the editor in a real n8n 2.41.1
#   queue   n8n in queue mode (PostgreSQL, Redis, a main process and two workers)
# No suite is skipped unless SKIP_SUITES names it (comma-separated: e2e, editor, queue); a test
# that jest skips fails the run the same way (test/support/noSkippedTests.js).
set -euo pipefail
cd "$(dirname "$0")/../.."
SKIP_SUITES="${SKIP_SUITES:-}"

for suite in ${SKIP_SUITES//,/ }; do
	case "$suite" in
		e2e | editor | queue) echo "== SKIP_SUITES: the $suite suite is skipped" ;;
		*)
			echo "SKIP_SUITES names '$suite', which is not a suite that can be skipped (e2e, editor, queue)" >&2
			exit 2
			;;
	esac
done
skipped() { [[ ",${SKIP_SUITES:-}," == *",$1,"* ]]; }

started=$(date +%s)
step() { echo "== [$(($(date +%s) - started)) s] $*"; }

step "Debian packages"
if skipped e2e; then bash tools/test/system-packages.sh queue; else bash tools/test/system-packages.sh editor queue; fi

step "build"
npm run build
step "checks"
npm run checks
if ! skipped e2e; then
	step "e2e"
	npm run e2e
fi
if ! skipped queue; then
	step "queue"
	npm run queue
fi
step "all suites passed"
