/**
 * Bench 5: the ways users place orders and read history, timed inside a real n8n 2.41.1 (the e2e
 * runtime in .n8n-runtime/, tools/n8n-runtime) that loads this package as a community package
 * (npm pack, unpacked into the user folder's .n8n/nodes), against the sandbox in this process.
 *
 * Time = the sum of n8n's own per-node `executionTime` of the measured nodes (the input nodes
 * are not counted), median of BENCH_N8N_REPS runs (default 9) after one warm-up round. Requests,
 * their weight and the 429 answers are counted in the sandbox's ledger. The sandbox is reset before
 * every run and runs with its default rate limit (6,000 weight per 60 s per key), so a row that
 * gets 429s shows them; the open orders of the cancel ways are seeded after the reset.
 *
 * By default it runs issue 25's rows (ISSUE_25_WAYS: Create fixed, 2 and 5 mapped, 5 mapped with
 * business keys, Create Many mapped and auto-mapped, Get History and Cancel per item, and their
 * chains) at loopback, 20 ms and 100 ms of server latency: 11 ways × 3 latencies × 10 rounds,
 * about 6 minutes with the node's parallel requests (~30 s a round, ~25 s to build and start).
 *
 * The package is built from a copy of the sources (working tree by default, or a commit with
 * BENCH_N8N_SOURCE=HEAD) into a temporary folder, so the repo's dist/ is neither needed nor
 * touched.
 *
 * Env: BENCH_N8N_REPS (9), BENCH_N8N_WAYS (e.g. "a,b,e"; default issue 25's rows, "all": every
 * way), BENCH_N8N_LATENCIES (server latencies in ms, one pass each, 0 = loopback; default
 * "0,20,100"; the older BENCH_N8N_LATENCY_MS=N still means "0,N", and 0 loopback only) and
 * BENCH_N8N_LATENCY_WAYS (the ways of the passes with latency; default issue 25's rows and f, m,
 * mb), BENCH_N8N_RATE_LIMIT (on: the sandbox's default limits; off: none), BENCH_N8N_SOURCE
 * (worktree | a git revision), BENCH_N8N_PATCH (patch files, -p1, applied to the copy: measure a
 * change before making it), BENCH_N8N_COMPARE (patch files: run "before" and "after" side by side
 * in two n8n instances, alternating run by run), BENCH_N8N_MODE (server: one `n8n start`, runs
 * through the REST API, warm; cli: one `n8n execute` per run, cold), BENCH_N8N_PROFILE=1 or a list
 * of ways (also profile way e, or those, with --cpu-prof, see cpuProfile.ts), BENCH_N8N_ENGINE
 * (n8n's N8N_EXPRESSION_ENGINE, default n8n's).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

import { DEMO_KEYS, type Sandbox } from '../sandbox';
import { DEFAULT_RATE_LIMIT } from '../sandbox/constants';
import { executeWorkflow, importCredentials, importWorkflow } from '../tools/n8n/cli';
import {
	createN8nEnv,
	createTempUserFolder,
	removeUserFolder,
	type N8nEnv,
} from '../tools/n8n/environment';
import { packAndInstallPackage } from '../tools/n8n/package';
import { runProcess } from '../tools/n8n/processes';
import type { N8nRun } from '../tools/n8n/run-data';
import { REPO_ROOT, getRuntime, isRuntimeInstalled } from '../tools/n8n/runtime';
import { startN8n, type N8nInstance } from '../tools/n8n/server';
import { analyseCpuProfile, type ProfileSummary } from './cpuProfile';
import {
	CANCEL_COUNT,
	CANCEL_ORDER,
	CRYPTO_CREDENTIAL,
	HEADER_AUTH_CREDENTIAL,
	HISTORY_RECORDS,
	ISSUE_25_WAYS,
	TRADING_CREDENTIAL,
	allWays,
	type HistoryWindow,
	type Way,
} from './realN8nWorkflows';
import { fmtMs, median, type Row } from './stats';

const log = (line: string) => process.stderr.write(`${line}\n`);
const HOUR = 3_600_000;

export interface RealN8nConfig {
	reps: number;
	ways?: string[];
	source: string;
	/** Patch files applied to the copy before it is built (experiments; the repo is not touched). */
	patches: string[];
	/**
	 * Patch files of an "after" variant: the package is then installed twice (as built, and with
	 * these patches on top) in two n8n instances, and every run alternates between them, so both
	 * see the same machine load.
	 */
	compare: string[];
	mode: 'server' | 'cli';
	/** Ways to profile with --cpu-prof (empty: none). */
	profile: string[];
	engine?: string;
	/** Server latency of each pass in ms (0: loopback), and the ways the passes with latency run. */
	latencies: number[];
	latencyWays: string[];
	/** Whether the sandbox applies its default rate limit (DEFAULT_RATE_LIMIT) in every run. */
	rateLimit: boolean;
}

function list(text: string): string[] {
	return text
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '' && part !== '0');
}

/** BENCH_N8N_LATENCIES ("0,20,100"), else the older BENCH_N8N_LATENCY_MS (N: "0,N"). */
function latenciesFromEnv(): number[] {
	const text =
		process.env.BENCH_N8N_LATENCIES ??
		(process.env.BENCH_N8N_LATENCY_MS === undefined
			? '0,20,100'
			: `0,${process.env.BENCH_N8N_LATENCY_MS}`);
	const latencies = text
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.map(Number);
	if (latencies.length === 0 || latencies.some((ms) => !Number.isFinite(ms) || ms < 0))
		throw new Error(`bench 5: latencies must be milliseconds ≥ 0, e.g. "0,20,100", not "${text}"`);
	return [...new Set(latencies)];
}

export function realN8nConfigFromEnv(): RealN8nConfig {
	const ways =
		process.env.BENCH_N8N_WAYS === undefined
			? [...ISSUE_25_WAYS]
			: list(process.env.BENCH_N8N_WAYS);
	return {
		reps: Number(process.env.BENCH_N8N_REPS ?? 9),
		ways: ways.length > 0 && !ways.includes('all') ? ways : undefined,
		source: process.env.BENCH_N8N_SOURCE ?? 'worktree',
		patches: list(process.env.BENCH_N8N_PATCH ?? ''),
		compare: list(process.env.BENCH_N8N_COMPARE ?? ''),
		mode: process.env.BENCH_N8N_MODE === 'cli' ? 'cli' : 'server',
		profile: list(
			process.env.BENCH_N8N_PROFILE === '1' ? 'e' : (process.env.BENCH_N8N_PROFILE ?? ''),
		),
		engine: process.env.BENCH_N8N_ENGINE,
		latencies: latenciesFromEnv(),
		latencyWays: list(
			process.env.BENCH_N8N_LATENCY_WAYS ?? [...ISSUE_25_WAYS, 'f', 'm', 'mb'].join(),
		),
		rateLimit: !['off', '0', 'false'].includes(process.env.BENCH_N8N_RATE_LIMIT ?? 'on'),
	};
}

// ------------------------------------------------------------------ the package, built apart

/**
 * Copies the package sources (the working tree, or `revision` from git) to a temporary folder and
 * builds them there (tsc + the icon copy), with the repo's node_modules linked in.
 */
export async function buildPackageCopy(source: string, patches: string[]): Promise<string> {
	const stage = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-package-'));
	const entries = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js'];
	if (source === 'worktree') {
		for (const entry of entries)
			await fsp.cp(path.join(REPO_ROOT, entry), path.join(stage, entry), { recursive: true });
	} else {
		const archive = execFileSync('git', ['archive', source, ...entries], {
			cwd: REPO_ROOT,
			maxBuffer: 64 * 2 ** 20,
		});
		execFileSync('tar', ['-x', '-C', stage], { input: archive });
	}
	// Experiments (e.g. a transport change measured before it is made): patches applied to the copy only.
	for (const patch of patches) {
		const applied = await runProcess(
			'patch',
			['-p1', '--forward', '-d', stage, '-i', path.resolve(patch)],
			{ env: process.env, timeoutMs: 60_000 },
		);
		if (applied.exitCode !== 0)
			throw new Error(
				`bench 5: ${patch} does not apply to the ${source} sources:\n${applied.stdout}${applied.stderr}`,
			);
	}
	await fsp.symlink(path.join(REPO_ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
	for (const [label, script, args] of [
		[
			'tsc',
			path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
			['-p', 'tsconfig.json'],
		],
		['gulp', path.join(REPO_ROOT, 'node_modules', 'gulp', 'bin', 'gulp.js'), ['build:icons']],
	] as const) {
		const result = await runProcess(process.execPath, [script, ...args], {
			env: process.env,
			cwd: stage,
			timeoutMs: 300_000,
		});
		if (result.exitCode !== 0) {
			throw new Error(
				`bench 5: ${label} failed on the ${source} sources:\n${(result.stdout + result.stderr).slice(-3000)}`,
			);
		}
	}
	return stage;
}

interface NodeTypeLike {
	description?: {
		version?: number | number[];
		properties?: Array<{ name: string; type?: string; options?: Array<{ value?: unknown }> }>;
	};
	nodeVersions?: Record<string, NodeTypeLike>;
}

/** What the ways need to know of the built package's node versions. */
interface PackageFacts {
	/** The newest node version whose Input Mode offers `autoMap`. */
	autoMap?: number;
	newestVersion: number;
	/** Whether the newest version's Order ID is a resource locator (a picker). */
	orderIdLocator: boolean;
}

export function packageFacts(stage: string): PackageFacts {
	const file = path.join(stage, 'dist', 'nodes', 'TradingService', 'TradingService.node.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(file) as { TradingService: new () => NodeTypeLike };
	const nodeType = new exported.TradingService();
	const variants: Array<[number, NodeTypeLike]> = nodeType.nodeVersions
		? Object.entries(nodeType.nodeVersions).map(([version, variant]) => [Number(version), variant])
		: [[Math.max(...[nodeType.description?.version ?? 1].flat()), nodeType]];
	let autoMap: number | undefined;
	for (const [version, variant] of variants) {
		const offers = (variant.description?.properties ?? []).some(
			(property) =>
				property.name === 'inputMode' &&
				(property.options ?? []).some((option) => option.value === 'autoMap'),
		);
		if (offers) autoMap = Math.max(autoMap ?? version, version);
	}
	const [newestVersion, newest] = variants.reduce((a, b) => (b[0] > a[0] ? b : a));
	const orderIdLocator = (newest.description?.properties ?? []).some(
		(property) => property.name === 'orderId' && property.type === 'resourceLocator',
	);
	return { autoMap, newestVersion, orderIdLocator };
}

/**
 * Seeds the open orders the cancel ways cancel (after a reset, so their IDs are the same every
 * time: the book's ID counter restarts) and returns their IDs, oldest first.
 */
export function seedCancelOrders(sandbox: Sandbox): string[] {
	const start = sandbox.now() - 60_000;
	return Array.from(
		{ length: CANCEL_COUNT },
		(_, index) => sandbox.seedOpenOrder({ ...CANCEL_ORDER, time: start + index }).orderId,
	);
}

// ------------------------------------------------------------------ runs

interface RunFigures {
	ms: number;
	requests: number;
	/** The requests' weight, and how many were answered 429, from the sandbox's ledger. */
	weight: number;
	rateLimited: number;
	executionMs?: number;
	load: number;
	perNode: Record<string, number>;
	/** Why the run did not do what it should, when 429 answers explain it (a finding, kept). */
	failure?: string;
}

class WayUnavailable extends Error {}

function checkRun(way: Way, run: N8nRun | undefined, sandbox: Sandbox): void {
	const error = run?.data?.resultData?.error;
	if (error) {
		const text = `${error.message ?? ''} ${String(error.description ?? '')}`;
		if (way.requires === 'autoMap') throw new WayUnavailable(text.trim());
		throw new Error(`way ${way.key}: the run failed: ${text}`);
	}
	const task = run?.data?.resultData?.runData?.[way.outputNode]?.[0];
	const items = task?.data?.main?.[0] ?? [];
	if (items.length !== way.outputItems)
		throw new Error(
			`way ${way.key}: ${way.outputNode} returned ${items.length} items, expected ${way.outputItems}`,
		);
	if (way.kind === 'cancel') {
		if (sandbox.ledger.cancels.length !== way.count)
			throw new Error(
				`way ${way.key}: ${sandbox.ledger.cancels.length} orders cancelled, expected ${way.count}`,
			);
		const rejected = items.find(
			(item) => item.json.error !== undefined || item.json.outcome === 'rejected',
		);
		if (rejected !== undefined)
			throw new Error(`way ${way.key}: an item failed: ${JSON.stringify(rejected.json)}`);
	}
	if (way.kind === 'orders') {
		if (sandbox.ledger.orders.length !== way.count) {
			throw new Error(
				`way ${way.key}: ${sandbox.ledger.orders.length} orders placed, expected ${way.count}`,
			);
		}
		const failed = items.filter(
			(item) => item.json.error !== undefined || item.json.success === false,
		).length;
		if (failed > 0)
			throw new Error(
				`way ${way.key}: ${failed} items failed: ${JSON.stringify(items.find((item) => item.json.error !== undefined || item.json.success === false)?.json)}`,
			);
	}
}

function figuresOf(
	way: Way,
	run: N8nRun,
	ledger: Pick<RunFigures, 'requests' | 'weight' | 'rateLimited'>,
	load: number,
	failure?: string,
): RunFigures {
	const perNode: Record<string, number> = {};
	let ms = 0;
	for (const name of way.measured) {
		const task = run.data?.resultData?.runData?.[name]?.[0];
		if (task?.executionTime === undefined) {
			// A run that failed on 429s may stop before a measured node ran.
			if (failure !== undefined) {
				ms = NaN;
				continue;
			}
			throw new Error(`way ${way.key}: node ${name} has no executionTime`);
		}
		perNode[name] = task.executionTime;
		ms += task.executionTime;
	}
	const started = run.startedAt ? Date.parse(run.startedAt) : NaN;
	const stopped = run.stoppedAt ? Date.parse(run.stoppedAt) : NaN;
	return {
		ms,
		...ledger,
		failure,
		load,
		perNode,
		executionMs: Number.isFinite(stopped - started) ? stopped - started : undefined,
	};
}

export interface Runner {
	run(way: Way): Promise<N8nRun>;
	stop(): Promise<void>;
}

export async function serverRunner(
	env: N8nEnv,
	extraEnv: Record<string, string> = {},
): Promise<Runner & { n8n: N8nInstance }> {
	const n8n = await startN8n({ ...env, ...extraEnv }, { timeoutMs: 180_000 });
	const cookie = await n8n.login();
	return {
		n8n,
		async run(way) {
			const execution = await n8n.runWorkflowFromTrigger(
				cookie,
				way.workflow.id,
				'Manual Trigger',
				{ timeoutMs: 600_000 },
			);
			return { ...(execution as unknown as N8nRun), data: execution.data as N8nRun['data'] };
		},
		stop: () => n8n.stop(),
	};
}

function cliRunner(env: N8nEnv): Runner {
	return {
		async run(way) {
			const result = await executeWorkflow(env, way.workflow.id, { timeoutMs: 600_000 });
			if (!result.run)
				throw new Error(
					`n8n execute ${way.workflow.id} printed no run (exit ${result.exitCode}):\n${result.stderr.slice(-2000)}`,
				);
			return result.run;
		},
		async stop() {},
	};
}

/** What a run starts from: the sandbox's state and settings, and the IDs the cancel ways name. */
interface RunSetting {
	window: HistoryWindow;
	latencyMs: number;
	rateLimit: boolean;
	cancelOrderIds: readonly string[];
}

function prepareSandbox(sandbox: Sandbox, way: Way, setting: RunSetting): void {
	sandbox.reset();
	// reset() puts the start options back (run.ts starts the sandbox without a rate limit).
	if (setting.rateLimit) sandbox.setRateLimit({ ...DEFAULT_RATE_LIMIT });
	if (setting.latencyMs > 0) sandbox.setFaults({ latencyMs: setting.latencyMs });
	if (way.kind === 'history') {
		sandbox.seedRecords({
			...HISTORY_RECORDS,
			startTime: setting.window.startTime + HOUR,
			endTime: setting.window.endTime - 60_000,
		});
	}
	if (way.kind === 'cancel') {
		// The workflow's input names these IDs: every run cancels CANCEL_COUNT fresh open orders.
		const ids = seedCancelOrders(sandbox);
		if (ids.join() !== setting.cancelOrderIds.join())
			throw new Error(
				`way ${way.key}: the seeded open orders got other IDs (${ids[0]}…) than the workflow's input (${setting.cancelOrderIds[0]}…)`,
			);
	}
}

async function runWay(
	runner: Runner,
	sandbox: Sandbox,
	way: Way,
	setting: RunSetting,
): Promise<RunFigures> {
	prepareSandbox(sandbox, way, setting);
	const load = os.loadavg()[0];
	const run = await runner.run(way);
	const requests = sandbox.ledger.requests;
	const ledger = {
		requests: requests.length,
		weight: requests.reduce((sum, request) => sum + request.weight, 0),
		rateLimited: requests.filter((request) => request.status === 429).length,
	};
	try {
		checkRun(way, run, sandbox);
	} catch (error) {
		// A run the rate limit broke is a figure of the table, not a crash of the bench.
		if (ledger.rateLimited === 0 || error instanceof WayUnavailable) throw error;
		return figuresOf(way, run, ledger, load, (error as Error).message.slice(0, 200));
	}
	return figuresOf(way, run, ledger, load);
}

// ------------------------------------------------------------------ setup

interface Installed {
	label: string;
	env: N8nEnv;
	userFolder: string;
	stage: string;
	ways: Way[];
	autoMap?: number;
}

interface InstallContext {
	window: HistoryWindow;
	cancelOrderIds: readonly string[];
}

async function install(
	sandbox: Sandbox,
	config: RealN8nConfig,
	label: string,
	patches: string[],
	context: InstallContext,
): Promise<Installed> {
	log(
		`  bench 5${label ? ` (${label})` : ''}: building the package from the ${config.source} sources${patches.length > 0 ? ` with ${patches.join(', ')}` : ''}`,
	);
	const stage = await buildPackageCopy(config.source, patches);
	const facts = packageFacts(stage);
	const autoMap = facts.autoMap;
	const userFolder = await createTempUserFolder('n8n-bench-');
	await packAndInstallPackage(userFolder, { repoRoot: stage });
	const extra: Record<string, string> = {
		N8N_DISABLED_MODULES: 'mcp-registry',
		// Way c: the Code node may require('crypto'), as self-hosters allow it.
		NODE_FUNCTION_ALLOW_BUILTIN: 'crypto',
		// Nothing here reads n8n's log, and logging every execution would be charged to the runs.
		N8N_LOG_LEVEL: config.mode === 'cli' ? 'info' : 'warn',
	};
	if (config.engine) extra.N8N_EXPRESSION_ENGINE = config.engine;
	const env = await createN8nEnv({ userFolder, extra });
	await importCredentials(env, [
		{
			id: TRADING_CREDENTIAL.id,
			name: TRADING_CREDENTIAL.name,
			type: 'tradingServiceApi',
			data: {
				apiKey: DEMO_KEYS.master.apiKey,
				secretKey: DEMO_KEYS.master.secret,
				baseUrl: sandbox.baseUrl,
				recvWindow: 5000,
				weightBudget: 0,
			},
		},
		{
			id: CRYPTO_CREDENTIAL.id,
			name: CRYPTO_CREDENTIAL.name,
			type: 'crypto',
			data: { hmacSecret: DEMO_KEYS.master.secret },
		},
		{
			id: HEADER_AUTH_CREDENTIAL.id,
			name: HEADER_AUTH_CREDENTIAL.name,
			type: 'httpHeaderAuth',
			data: { name: 'X-APIKEY', value: DEMO_KEYS.master.apiKey },
		},
	]);
	const ways = allWays({
		baseUrl: sandbox.baseUrl,
		historyWindow: context.window,
		autoMapVersion: autoMap,
		newestVersion: facts.newestVersion,
		orderIdLocator: facts.orderIdLocator,
		cancelOrderIds: context.cancelOrderIds,
	}).filter((way) => config.ways === undefined || config.ways.includes(way.key));
	await importWorkflow(
		env,
		ways
			.filter((way) => way.requires !== 'autoMap' || autoMap !== undefined)
			.map((way) => way.workflow),
	);
	return { label, env, userFolder, stage, ways, autoMap };
}

async function uninstall(installed: Installed): Promise<void> {
	await removeUserFolder(installed.userFolder);
	await fsp.rm(installed.stage, { recursive: true, force: true });
}

// ------------------------------------------------------------------ the bench

export interface WayResult {
	way: Way;
	/** The package variant ('' unless BENCH_N8N_COMPARE: 'before' / 'after'). */
	variant: string;
	latencyMs: number;
	runs: RunFigures[];
	/** The warm-up run (not in the medians; its 429 answers count all the same). */
	warmUp?: RunFigures;
	unavailable?: string;
}

function perItem(ms: number, count: number): string {
	return `${(ms / count).toFixed(2)} ms`;
}

function loadRange(runs: RunFigures[]): string {
	const loads = runs.map((run) => run.load);
	return `${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`;
}

/** Runs that did what they should (a run broken by 429s has no meaningful time). */
function timedRuns(result: WayResult): RunFigures[] {
	return result.runs.filter((run) => run.failure === undefined && Number.isFinite(run.ms));
}

function medianMs(result: WayResult | undefined): number | undefined {
	if (result === undefined) return undefined;
	const runs = timedRuns(result);
	return runs.length > 0 ? median(runs.map((run) => run.ms)) : undefined;
}

/** 429 answers over the warm-up and the measured runs. */
function rateLimitedCount(result: WayResult): number {
	return [...result.runs, ...(result.warmUp ? [result.warmUp] : [])].reduce(
		(sum, run) => sum + run.rateLimited,
		0,
	);
}

function distinct(values: number[]): string {
	return [...new Set(values)].join('/');
}

/** 429 answers over all runs, and the runs they broke. */
function rateLimitedText(result: WayResult): string {
	const failed = result.runs.filter((run) => run.failure !== undefined).length;
	const runs = result.runs.length + (result.warmUp ? 1 : 0);
	return `${rateLimitedCount(result)} in ${runs} runs${failed > 0 ? ` (${failed} runs failed: ${result.runs.find((run) => run.failure)?.failure})` : ''}`;
}

/** The chain a way is compared with: same kind, same item count, same latency. */
function chainKey(way: Way): string {
	if (way.kind === 'history') return 'hb';
	if (way.kind === 'market') return 'mb';
	if (way.kind === 'cancel') return 'kb';
	return way.count === 1000 ? 'gb' : 'b';
}

function latencyTitle(latencyMs: number): string {
	return latencyMs === 0 ? 'loopback' : `${latencyMs} ms latency`;
}

/** The table of bench 5 for one latency and variant (markdown, also printed). */
export function realN8nTable(results: WayResult[], latencyMs: number, variant = ''): string {
	const own = results.filter(
		(result) => result.latencyMs === latencyMs && result.variant === variant,
	);
	const lines = [
		'| Way | Items | Node time, median (min–max) | Per item | Chain ÷ this (> 1: faster than the chain) | Requests | Weight | 429 answers | Keys | Expr./item | Load (1 min) |',
		'|---|---|---|---|---|---|---|---|---|---|---|',
	];
	for (const result of own) {
		const { way, runs, unavailable } = result;
		const label = `${way.key}. ${way.label}`;
		const keys = way.businessKeys ? 'yes' : 'no';
		if (unavailable !== undefined || runs.length === 0) {
			lines.push(
				`| ${label} | ${way.count} | n/a (${unavailable ?? 'not run'}) | | | | | | ${keys} | ${way.expressionsPerItem} | |`,
			);
			continue;
		}
		const times = timedRuns(result).map((run) => run.ms);
		const ms = medianMs(result);
		const chain = own.find((candidate) => candidate.way.key === chainKey(way));
		const chainMs = medianMs(chain);
		const versus =
			chainMs === undefined || ms === undefined || chain?.way === way
				? ''
				: `${(chainMs / ms).toFixed(2)}×`;
		const time =
			ms === undefined
				? 'n/a (every run failed)'
				: `${fmtMs(ms)} (${fmtMs(Math.min(...times))}–${fmtMs(Math.max(...times))})`;
		lines.push(
			`| ${label} | ${way.count} | ${time} | ${ms === undefined ? '' : perItem(ms, way.count)} | ${versus} | ${distinct(runs.map((run) => run.requests))} | ${distinct(runs.map((run) => run.weight))} | ${rateLimitedText(result)} | ${keys} | ${way.expressionsPerItem} | ${loadRange(runs)} |`,
		);
	}
	return lines.join('\n');
}

/** Before / after, way by way (BENCH_N8N_COMPARE). */
export function comparisonTable(results: WayResult[]): string {
	const lines = [
		'| Way | Items | Latency | Before, median | After, median | After ÷ before |',
		'|---|---|---|---|---|---|',
	];
	for (const before of results.filter((result) => result.variant === 'before')) {
		const after = results.find(
			(result) =>
				result.variant === 'after' &&
				result.way.key === before.way.key &&
				result.latencyMs === before.latencyMs,
		);
		const beforeMs = medianMs(before);
		const afterMs = medianMs(after);
		if (beforeMs === undefined || afterMs === undefined) continue;
		lines.push(
			`| ${before.way.key}. ${before.way.label} | ${before.way.count} | ${before.latencyMs} ms | ${fmtMs(beforeMs)} (${perItem(beforeMs, before.way.count)}/item) | ${fmtMs(afterMs)} (${perItem(afterMs, before.way.count)}/item) | ${(afterMs / beforeMs).toFixed(2)} |`,
		);
	}
	return lines.join('\n');
}

/** Per-node split of the chains, for the README. */
export function chainSplit(results: WayResult[]): string {
	const lines: string[] = [];
	for (const result of results) {
		const { way, latencyMs, variant } = result;
		const runs = timedRuns(result);
		if (way.measured.length < 2 || runs.length === 0 || variant === 'after') continue;
		const parts = way.measured.map(
			(name) => `${name} ${fmtMs(median(runs.map((run) => run.perNode[name])))}`,
		);
		lines.push(
			`* ${way.key} (${way.count}${latencyMs > 0 ? `, ${latencyMs} ms latency` : ''}): ${parts.join(' + ')}`,
		);
	}
	return lines.join('\n');
}

export interface RealN8nResult {
	rows: Row[];
	markdown: string;
	profiles: Array<{ key: string; variant: string; summary: ProfileSummary }>;
	skipped?: string;
}

export async function benchRealN8n(
	sandbox: Sandbox,
	config: RealN8nConfig = realN8nConfigFromEnv(),
): Promise<RealN8nResult> {
	const name = '5. Real n8n 2.41.1 (package installed as a community package)';
	if (!isRuntimeInstalled(getRuntime())) {
		const skipped =
			'skipped: the n8n runtime is not installed (bash tools/n8n-runtime/install.sh, ~5 min, 2.8 GB)';
		return {
			rows: [{ benchmark: name, measure: 'bench 5', value: skipped, target: '', verdict: 'info' }],
			markdown: skipped,
			profiles: [],
			skipped,
		};
	}
	const started = Date.now();
	const now = Date.now();
	const window: HistoryWindow = { startTime: now - 3 * HOUR, endTime: now };
	sandbox.reset();
	const context: InstallContext = { window, cancelOrderIds: seedCancelOrders(sandbox) };
	sandbox.reset();
	const variants: Array<[string, string[]]> =
		config.compare.length > 0
			? [
					['before', config.patches],
					['after', [...config.patches, ...config.compare]],
				]
			: [['', config.patches]];
	const installs: Installed[] = [];
	const runners = new Map<string, Runner>();
	const results: WayResult[] = [];
	const profiles: RealN8nResult['profiles'] = [];
	try {
		for (const [label, patches] of variants)
			installs.push(await install(sandbox, config, label, patches, context));
		for (const latencyMs of config.latencies) {
			for (const way of installs[0].ways) {
				if (latencyMs > 0 && !config.latencyWays.includes(way.key)) continue;
				for (const installed of installs) {
					const own = installed.ways.find((candidate) => candidate.key === way.key)!;
					const unavailable =
						own.requires === 'autoMap' && installed.autoMap === undefined
							? 'mode not available'
							: undefined;
					results.push({ way: own, variant: installed.label, latencyMs, runs: [], unavailable });
				}
			}
		}
		for (const installed of installs) {
			runners.set(
				installed.label,
				config.mode === 'cli' ? cliRunner(installed.env) : await serverRunner(installed.env),
			);
		}
		// One warm-up round, then the measured rounds; every round runs each way once (in each
		// variant, one after the other), so drift (load from other work on the machine) spreads
		// over all ways and variants alike.
		for (let round = 0; round <= config.reps; round++) {
			for (const result of results) {
				if (result.unavailable !== undefined) continue;
				const label = `${result.way.key}${result.variant ? ` ${result.variant}` : ''}${result.latencyMs > 0 ? ` (+${result.latencyMs} ms)` : ''}`;
				try {
					const figures = await runWay(runners.get(result.variant)!, sandbox, result.way, {
						window,
						latencyMs: result.latencyMs,
						rateLimit: config.rateLimit,
						cancelOrderIds: context.cancelOrderIds,
					});
					if (round > 0) result.runs.push(figures);
					else result.warmUp = figures;
					log(
						`  bench 5 ${round === 0 ? 'warm-up' : `round ${round}/${config.reps}`} ${label}: ${fmtMs(figures.ms)}, ${figures.requests} requests, ${figures.rateLimited} × 429, load ${figures.load.toFixed(2)}${figures.failure ? `, FAILED: ${figures.failure}` : ''}`,
					);
				} catch (error) {
					if (!(error instanceof WayUnavailable)) throw error;
					result.unavailable = `mode not available: ${error.message.slice(0, 120)}`;
					log(`  bench 5 ${label}: n/a (${result.unavailable})`);
				}
			}
		}
		for (const runner of runners.values()) await runner.stop();
		runners.clear();
		for (const installed of installs) {
			for (const key of config.profile) {
				const summary = await profileWay(sandbox, installed, key, {
					window,
					latencyMs: 0,
					rateLimit: config.rateLimit,
					cancelOrderIds: context.cancelOrderIds,
				});
				if (summary) profiles.push({ key, variant: installed.label, summary });
			}
		}
	} finally {
		for (const runner of runners.values()) await runner.stop();
		for (const installed of installs) await uninstall(installed);
		// The benches after this one start from the sandbox's start options.
		sandbox.reset();
	}

	const rows = results.map((result): Row => {
		const { way, runs, unavailable, latencyMs, variant } = result;
		const ms = medianMs(result);
		const value =
			unavailable !== undefined || runs.length === 0
				? `n/a (${unavailable ?? 'not run'})`
				: `${ms === undefined ? 'n/a (every run failed)' : `${fmtMs(ms)} (${perItem(ms, way.count)}/item)`}, ${distinct(runs.map((run) => run.requests))} requests, 429: ${rateLimitedText(result)}, keys: ${way.businessKeys ? 'yes' : 'no'}, load ${loadRange(runs)}`;
		const latency = latencyMs > 0 ? `, +${latencyMs} ms latency` : '';
		return {
			benchmark: name,
			measure: `${variant ? `${variant}: ` : ''}${way.key}. ${way.label}, ${way.count} items${latency}`,
			value,
			target: '',
			verdict: 'info',
		};
	});
	const summaries: string[] = [];
	for (const [label] of variants) {
		const own = results.filter((result) => result.variant === label);
		rows.push(...targetRows(name, own, label));
		const issue25 = issue25Targets(own, config.latencies);
		rows.push(
			...issue25.map(
				(target): Row => ({
					benchmark: name,
					measure: `${label ? `${label}: ` : ''}issue 25: ${target.target}, ${target.latency}`,
					value: target.figures,
					target: target.threshold,
					verdict: target.verdict,
				}),
			),
		);
		summaries.push(
			`Issue 25's targets${label ? ` — ${label}` : ''} (median of ${config.reps}):`,
			'',
			'| Target | Latency | Figures | Verdict |',
			'|---|---|---|---|',
			...issue25.map(
				(target) =>
					`| ${target.target} (${target.threshold}) | ${target.latency} | ${target.figures} | ${target.verdict === 'met' ? 'met' : target.verdict === 'NOT MET' ? '**not met**' : 'not measured'} |`,
			),
			'',
		);
	}
	const how =
		config.mode === 'cli'
			? 'one `n8n execute` per run'
			: 'one `n8n start`, manual runs through the REST API';
	const limits = config.rateLimit
		? `the sandbox's default rate limit on (${DEFAULT_RATE_LIMIT.maxWeight} weight per ${DEFAULT_RATE_LIMIT.windowMs / 1000} s per key)`
		: 'the sandbox without rate limit';
	const sections: string[] = [
		`${how}, ${limits}, sandbox reset before every run; median of ${config.reps} runs after a warm-up round; bench 5 took ${fmtMs(Date.now() - started)}.`,
		'',
	];
	for (const [label] of variants) {
		const title = label ? ` — ${label}` : '';
		for (const latencyMs of config.latencies) {
			sections.push(
				latencyMs === 0
					? `Loopback (no added latency)${title}:`
					: `With ${latencyMs} ms of added server latency per request${title}:`,
				'',
				realN8nTable(results, latencyMs, label),
				'',
			);
		}
	}
	if (config.compare.length > 0)
		sections.push(
			`Before → after (${config.compare.join(', ')}), runs alternating between the two n8n instances:`,
			'',
			comparisonTable(results),
			'',
		);
	sections.push('Chains, per node (median):', '', chainSplit(results), '', ...summaries);
	return { rows, markdown: sections.join('\n'), profiles };
}

/** Per order (or call) of a way at a latency: median node time ÷ items. */
function perOrderAt(results: WayResult[], key: string, latencyMs: number): number | undefined {
	const result = results.find(
		(candidate) => candidate.way.key === key && candidate.latencyMs === latencyMs,
	);
	const ms = medianMs(result);
	return ms === undefined || result === undefined ? undefined : ms / result.way.count;
}

interface TargetVerdict {
	target: string;
	threshold: string;
	latency: string;
	figures: string;
	verdict: Row['verdict'];
}

/**
 * Issue 25's "Done when", from this run's figures: the node against the users' chain per order at
 * the latencies the issue names, and no 429 answer in any row.
 */
function issue25Targets(results: WayResult[], latencies: number[]): TargetVerdict[] {
	const targets: TargetVerdict[] = [];
	const ratio = (target: string, way: string, chain: string, factor: number, latencyMs: number) => {
		const wayPerItem = perOrderAt(results, way, latencyMs);
		const chainPerItem = perOrderAt(results, chain, latencyMs);
		const base = {
			target: `${target} (${way}) vs chain (${chain})`,
			threshold: `chain ÷ node ≥ ${factor}×`,
			latency: latencyTitle(latencyMs),
		};
		if (wayPerItem === undefined || chainPerItem === undefined || !latencies.includes(latencyMs)) {
			targets.push({ ...base, figures: 'not measured in this run', verdict: 'TODO' });
			return;
		}
		const measured = chainPerItem / wayPerItem;
		targets.push({
			...base,
			figures: `${measured.toFixed(2)}× (node ${wayPerItem.toFixed(2)} ms, chain ${chainPerItem.toFixed(2)} ms per item)`,
			verdict: measured >= factor ? 'met' : 'NOT MET',
		});
	};
	for (const latencyMs of [0, 20]) ratio('Create, 5 mapped fields', 'a', 'b', 1, latencyMs);
	for (const latencyMs of [0, 20]) ratio('Create Many, auto-mapped', 'i', 'b', 10, latencyMs);
	ratio('Get History per item', 'h', 'hb', 1, 20);
	ratio('Cancel per item', 'k', 'kb', 1, 20);
	const measured = results.filter((result) => result.runs.length > 0);
	const limited = measured.filter((result) => rateLimitedCount(result) > 0);
	targets.push({
		target: '429 answers at the sandbox’s default limits, every row',
		threshold: '0',
		latency: latencies.map(latencyTitle).join(', '),
		figures:
			measured.length === 0
				? 'no row measured'
				: limited.length === 0
					? `0 in all ${measured.length} rows`
					: limited
							.map(
								(result) =>
									`${result.way.key} at ${latencyTitle(result.latencyMs)}: ${rateLimitedText(result)}`,
							)
							.join('; '),
		verdict: measured.length === 0 ? 'TODO' : limited.length === 0 ? 'met' : 'NOT MET',
	});
	return targets;
}

/** Issue #15's targets in real n8n, as far as the ways measured allow (loopback figures). */
function targetRows(name: string, results: WayResult[], variant: string): Row[] {
	const rows: Row[] = [];
	const prefix = variant ? `${variant}: ` : '';
	const ratio = (
		chain: string,
		way: string,
		target: number | undefined,
		measure: string,
		targetText: string,
	) => {
		const chainPerItem = perOrderAt(results, chain, 0);
		const wayPerItem = perOrderAt(results, way, 0);
		// Ways left out of this run (BENCH_N8N_WAYS) have no verdict to give.
		if (chainPerItem === undefined || wayPerItem === undefined) return;
		const factor = chainPerItem / wayPerItem;
		rows.push({
			benchmark: name,
			measure: prefix + measure,
			value: `${factor.toFixed(2)}× (${wayPerItem.toFixed(2)} vs ${chainPerItem.toFixed(2)} ms/order)`,
			target: targetText,
			verdict: target === undefined ? 'info' : factor >= target ? 'met' : 'NOT MET',
		});
	};
	ratio(
		'gb',
		'gi',
		10,
		'issue 15 target: Create Many auto-mapped (gi) vs chain (gb), 1,000 orders',
		'>= 10×',
	);
	ratio(
		'b',
		'a2',
		1,
		'issue 15 target: Create, 2 mapped expressions (a2) vs chain (b, maps 2)',
		'>= 1×',
	);
	ratio('b', 'e', 1.5, 'issue 15 target: Create, fixed fields (e) vs chain (b)', '>= 1.5×');
	return rows;
}

// ------------------------------------------------------------------ CPU profile (item 4)

/**
 * Starts a separate n8n with --cpu-prof, runs `key` (warm-up twice, then 3 profiled runs with idle
 * gaps), stops n8n (the profile is written at exit) and summarises the samples taken while the
 * package's code was running.
 */
async function profileWay(
	sandbox: Sandbox,
	installed: Installed,
	key: string,
	setting: RunSetting,
): Promise<ProfileSummary | undefined> {
	const way = installed.ways.find((candidate) => candidate.key === key);
	if (way === undefined) return undefined;
	const runs = 3;
	let summary: ProfileSummary | undefined;
	// n8n's main process does not always write its profile (a slow shutdown ends in SIGKILL): try twice.
	for (
		let attempt = 0;
		attempt < 2 && (summary === undefined || summary.windowMs.length < runs);
		attempt++
	) {
		const profileDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-cpuprof-'));
		log(
			`  bench 5${installed.label ? ` (${installed.label})` : ''}: CPU profile of way ${key} (profiles in ${profileDir})`,
		);
		// The profile is written when n8n exits; its shutdown must finish within the library's 10 s
		// grace before SIGKILL.
		const runner = await serverRunner(installed.env, {
			NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}`,
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '3',
		});
		const nodeTimes: number[] = [];
		try {
			for (let round = 0; round < 2 + runs; round++) {
				const figures = await runWay(runner, sandbox, way, setting);
				if (round >= 2) nodeTimes.push(figures.ms);
				// An idle gap, so that the runs' windows of package activity stay apart.
				await new Promise((resolve) => setTimeout(resolve, 1500));
			}
		} finally {
			await runner.stop();
		}
		const files = (await fsp.readdir(profileDir)).filter((file) => file.endsWith('.cpuprofile'));
		// n8n's main process writes the largest profile (the watchdog's is small).
		const sized = files.map((file) => ({
			file: path.join(profileDir, file),
			size: fs.statSync(path.join(profileDir, file)).size,
		}));
		sized.sort((a, b) => b.size - a.size);
		if (sized.length === 0) continue;
		summary = analyseCpuProfile(JSON.parse(await fsp.readFile(sized[0].file, 'utf8')), {
			packageMarker: '/node_modules/n8n-nodes-trading-service/',
			items: way.count,
			runs,
			nodeTimesMs: nodeTimes,
		});
		summary.profileFile = sized[0].file;
	}
	return summary;
}
