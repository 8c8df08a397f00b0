#!/usr/bin/env bash
# Installs the Debian packages a test suite needs, when they are missing and this machine can
# install them (root, or password-less sudo, with apt-get). When it cannot, it stops at once with
# the command to run. A suite named in SKIP_SUITES (comma-separated) needs nothing.
#
#   tools/test/system-packages.sh editor queue
#
# Suites: editor (chromium, for the editor e2e test), queue (redis-server and postgresql, for the
# queue-mode suite).
set -euo pipefail

skipped() { [[ ",${SKIP_SUITES:-}," == *",$1,"* ]]; }
has_postgresql() { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1; }

missing=()
for suite in "$@"; do
	skipped "$suite" && continue
	case "$suite" in
		editor)
			[ -n "${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null 2>&1 ||
				command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
			;;
		queue)
			command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
			has_postgresql || missing+=(postgresql)
			;;
		*)
			echo "system-packages.sh: unknown suite '$suite' (known: editor, queue)" >&2
			exit 2
			;;
	esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

advice() {
	echo "== Install them with:  sudo apt-get install -y ${missing[*]}" >&2
	echo "== or name the suites to skip, e.g.:  SKIP_SUITES=$(IFS=,; echo "$*") npm run test:all" >&2
	exit 1
}

if [ "$(id -u)" -eq 0 ]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	echo "== The tests need Debian packages that are not installed: ${missing[*]}," >&2
	echo "== and this user cannot install them (not root, no password-less sudo)." >&2
	advice "$@"
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "== The tests need ${missing[*]}, and this machine has no apt-get to install them." >&2
	advice "$@"
fi

echo "== installing ${missing[*]} (Debian packages) for the ${*} suite(s)"
if ! { "${as_root[@]}" apt-get update -qq &&
	DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
	echo "== Installing ${missing[*]} failed (the apt-get output is above)." >&2
	advice "$@"
fi
