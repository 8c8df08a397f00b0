#!/usr/bin/env bash
# `npm run test:all`, the README's test command and the whole of CI: installs the Debian packages
# the suites need (when missing and when it can; otherwise it stops at once with the command to
# run), builds the package once, then runs every suite against that build:
#   checks  format, lint, types, package contents, the jest suites (sandbox over loopback)
#   e2e     the examples, the trigger and the editor in a real n8n 2.41.1
#   n8n1    the e2e subset on n8n 1.123.81 (Node 22): every node, the credential test, the triggers
#   queue   n8n in queue mode (PostgreSQL, Redis, a main process and two workers)
# The two n8n runtimes (tools/n8n-runtime/install.sh, ~5 min each when not cached) install in the
# background, one after the other at low priority, while `checks` runs; the e2e steps wait for them
# and stop with the install's log tail if one failed.
# No suite is skipped unless SKIP_SUITES names it (comma-separated: e2e, n8n1, editor, queue); a
# test that jest skips fails the run the same way (test/support/noSkippedTests.js).
set -euo pipefail
cd "$(dirname "$0")/../.."
SKIP_SUITES="${SKIP_SUITES:-}"

for suite in ${SKIP_SUITES//,/ }; do
	case "$suite" in
		e2e | n8n1 | editor | queue) echo "== SKIP_SUITES: the $suite suite is skipped" ;;
		*)
			echo "SKIP_SUITES names '$suite', which is not a suite that can be skipped (e2e, n8n1, editor, queue)" >&2
			exit 2
			;;
	esac
done
skipped() { [[ ",${SKIP_SUITES:-}," == *",$1,"* ]]; }

started=$(date +%s)
step() { echo "== [$(($(date +%s) - started)) s] $*"; }

step "Debian packages"
if skipped e2e; then bash tools/test/system-packages.sh queue; else bash tools/test/system-packages.sh editor queue; fi

# The runtimes the remaining suites need, installed in the background (nice: checks come first).
runtimes=()
if ! skipped e2e || ! skipped queue; then runtimes+=(2); fi
if ! skipped n8n1; then runtimes+=(1); fi
install_logs="$(mktemp -d)"
install_pid=""
if [ ${#runtimes[@]} -gt 0 ]; then
	step "n8n runtimes (${runtimes[*]}): installing in the background, logs in $install_logs"
	# Its own process group (setsid), so that an early exit of this script stops it too.
	setsid bash tools/test/install-runtimes.sh "$install_logs" "${runtimes[@]}" &
	install_pid=$!
	trap 'kill -- -"$install_pid" 2>/dev/null || true' EXIT
fi
# Waits until the install of one runtime is over; stops the run with its log tail if it failed.
wait_for_runtime() {
	local major=$1 rc
	if [ ! -f "$install_logs/n8n$major.rc" ]; then
		step "waiting for the background install of the n8n $major runtime"
		while [ ! -f "$install_logs/n8n$major.rc" ] && kill -0 "$install_pid" 2>/dev/null; do sleep 2; done
	fi
	rc="$(cat "$install_logs/n8n$major.rc" 2>/dev/null || echo '(none: the installer stopped)')"
	if [ "$rc" != 0 ]; then
		echo "== the n8n $major runtime install failed (exit $rc); the last 60 lines of its output:" >&2
		tail -n 60 "$install_logs/n8n$major.log" >&2 || true
		exit 1
	fi
	step "n8n $major runtime ready (install: $(cat "$install_logs/n8n$major.seconds") s; $(tail -n 1 "$install_logs/n8n$major.log"))"
}

step "build"
npm run build
step "checks"
npm run checks
if ! skipped e2e; then
	wait_for_runtime 2
	step "e2e"
	npm run e2e
fi
if ! skipped n8n1; then
	wait_for_runtime 1
	step "e2e on n8n 1.123.81"
	npm run e2e:n8n1
fi
if ! skipped queue; then
	wait_for_runtime 2
	step "queue"
	npm run queue
fi
step "all suites passed"
