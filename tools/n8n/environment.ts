/**
 * Where and how n8n runs: its user folder (n8n keeps its data in `<it>/.n8n`), the environment
 * variables of a headless n8n, and the owner account n8n creates from them.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import { getFreePort } from './processes';
import { getRuntime, type N8nRuntime } from './runtime';

/** A fresh empty directory for N8N_USER_FOLDER (n8n keeps its data in `<it>/.n8n`). */
export async function createTempUserFolder(prefix = 'n8n-e2e-'): Promise<string> {
	return await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Remove a user folder made by createTempUserFolder (stop n8n first). */
export async function removeUserFolder(userFolder: string): Promise<void> {
	await fsp.rm(userFolder, { recursive: true, force: true, maxRetries: 3 });
}

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
const OWNER_PASSWORD_KEY = `${PRIVATE_KEY_PREFIX}OWNER_PASSWORD`;

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
		[OWNER_PASSWORD_KEY]: owner.password,
	});
	// n8n 2.x keeps binary data in files (`filesystem-v2:<id>`) under `.n8n/storage` by default;
	// 1.x keeps it in memory unless told, and its files go to `.n8n/binaryData`: the same as 2.x here.
	if (runtime.major === 1) {
		env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
		env.N8N_BINARY_DATA_STORAGE_PATH = path.join(options.userFolder, '.n8n', 'storage');
	}
	Object.assign(env, options.extra ?? {});
	if (runtime.major === 1) dropUnknownModules(env);
	await fsp.mkdir(options.userFolder, { recursive: true });
	return env;
}

/** Modules n8n 1.x does not know: it refuses to start when N8N_DISABLED_MODULES names one. */
const MODULES_NOT_IN_N8N_1 = ['mcp-registry'];

function dropUnknownModules(env: N8nEnv): void {
	if (env.N8N_DISABLED_MODULES === undefined) return;
	const kept = env.N8N_DISABLED_MODULES.split(',')
		.map((m) => m.trim())
		.filter((m) => m && !MODULES_NOT_IN_N8N_1.includes(m));
	if (kept.length > 0) env.N8N_DISABLED_MODULES = kept.join(',');
	else delete env.N8N_DISABLED_MODULES;
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

/** The owner's login (email and plain password) for an env made by createN8nEnv. */
export function ownerLogin(env: N8nEnv): { email: string; password: string } {
	return {
		email: env.N8N_INSTANCE_OWNER_EMAIL ?? DEFAULT_OWNER.email,
		password: env[OWNER_PASSWORD_KEY] ?? DEFAULT_OWNER.password,
	};
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

/** The env an n8n process gets: N8N_E2E_* removed, and a fresh broker port unless `keepBrokerPort`. */
export async function n8nProcessEnv(env: N8nEnv, keepBrokerPort = false): Promise<N8nEnv> {
	const out: N8nEnv = {};
	for (const [k, v] of Object.entries(env)) if (!k.startsWith(PRIVATE_KEY_PREFIX)) out[k] = v;
	// Each n8n process (CLI command or server) opens the task-runner broker port; two at once
	// with the same port fail, so every spawn gets its own.
	if (!keepBrokerPort) out.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	return out;
}
