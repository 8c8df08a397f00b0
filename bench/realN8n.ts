/**
 * Bench 5: the ways users place orders and read history, timed inside a real n8n 2.41.1 (the e2e
 * runtime in .n8n-runtime/, tools/n8n-runtime) that loads this package as a community package
 * (npm pack, unpacked into the user folder's .n8n/nodes), against the sandbox in this process.
 *
 * Time = the sum of n8n's own per-node `executionTime` of the measured nodes (the input nodes
 * are not counted), median of BENCH_N8N_REPS runs (default 3) after one warm-up round. Requests
 * are counted in the sandbox's ledger, which is reset before every run.
 *
 * The package is built from a copy of the sources (working tree by default, or a commit with
 * BENCH_N8N_SOURCE=HEAD) into a temporary folder, so the repo's dist/ is neither needed nor
 * touched.
 *
 * Env: BENCH_N8N_REPS (3), BENCH_N8N_WAYS (e.g. "a,b,e"; default all), BENCH_N8N_SOURCE
 * (worktree | a git revision), BENCH_N8N_PATCH (patch files, -p1, applied to the copy: measure a
 * change before making it), BENCH_N8N_COMPARE (patch files: run "before" and "after" side by side
 * in two n8n instances, alternating run by run), BENCH_N8N_LATENCY_MS (20; 0: no latency pass) and
 * BENCH_N8N_LATENCY_WAYS (a2,b,d,e,f,i,h,hb,m,mb), BENCH_N8N_MODE (server: one `n8n start`, runs through the REST
 * API, warm; cli: one `n8n execute` per run, cold), BENCH_N8N_PROFILE=1 or a list of ways (also
 * profile way e, or those, with --cpu-prof, see cpuProfile.ts), BENCH_N8N_ENGINE (n8n's N8N_EXPRESSION_ENGINE, default n8n's).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

import { DEMO_KEYS, type Sandbox } from '../sandbox';
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
	CRYPTO_CREDENTIAL,
	HEADER_AUTH_CREDENTIAL,
	HISTORY_RECORDS,
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
	/** Server latency of the second pass (0: no second pass), and the ways it runs. */
	latencyMs: number;
	latencyWays: string[];
}

function list(text: string): string[] {
	return text
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '' && part !== '0');
}

export function realN8nConfigFromEnv(): RealN8nConfig {
	const ways =
		process.env.BENCH_N8N_WAYS === undefined ? undefined : list(process.env.BENCH_N8N_WAYS);
	return {
		reps: Number(process.env.BENCH_N8N_REPS ?? 3),
		ways: ways && ways.length > 0 ? ways : undefined,
		source: process.env.BENCH_N8N_SOURCE ?? 'worktree',
		patches: list(process.env.BENCH_N8N_PATCH ?? ''),
		compare: list(process.env.BENCH_N8N_COMPARE ?? ''),
		mode: process.env.BENCH_N8N_MODE === 'cli' ? 'cli' : 'server',
		profile: list(
			process.env.BENCH_N8N_PROFILE === '1' ? 'e' : (process.env.BENCH_N8N_PROFILE ?? ''),
		),
		engine: process.env.BENCH_N8N_ENGINE,
		latencyMs: Number(process.env.BENCH_N8N_LATENCY_MS ?? 20),
		latencyWays: list(process.env.BENCH_N8N_LATENCY_WAYS ?? 'a2,b,d,e,f,i,h,hb,m,mb'),
	};
}

// ------------------------------------------------------------------ the package, built apart

/**
 * Copies the package sources (the working tree, or `revision` from git) to a temporary folder and
 * builds them there (tsc + the icon copy), with the repo's node_modules linked in.
 */
async function buildPackageCopy(source: string, patches: string[]): Promise<string> {
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
		properties?: Array<{ name: string; options?: Array<{ value?: unknown }> }>;
	};
	nodeVersions?: Record<string, NodeTypeLike>;
}

/** The newest node version whose Input Mode offers `autoMap`, read from the built package. */
function autoMapVersion(stage: string): number | undefined {
	const file = path.join(stage, 'dist', 'nodes', 'TradingService', 'TradingService.node.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(file) as { TradingService: new () => NodeTypeLike };
	const nodeType = new exported.TradingService();
	const variants: Array<[number, NodeTypeLike]> = nodeType.nodeVersions
		? Object.entries(nodeType.nodeVersions).map(([version, variant]) => [Number(version), variant])
		: [[Math.max(...[nodeType.description?.version ?? 1].flat()), nodeType]];
	let found: number | undefined;
	for (const [version, variant] of variants) {
		const offers = (variant.description?.properties ?? []).some(
			(property) =>
				property.name === 'inputMode' &&
				(property.options ?? []).some((option) => option.value === 'autoMap'),
		);
		if (offers) found = Math.max(found ?? version, version);
	}
	return found;
}

// ------------------------------------------------------------------ runs

interface RunFigures {
	ms: number;
	requests: number;
	executionMs?: number;
	load: number;
	perNode: Record<string, number>;
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

function figuresOf(way: Way, run: N8nRun, requests: number, load: number): RunFigures {
	const perNode: Record<string, number> = {};
	let ms = 0;
	for (const name of way.measured) {
		const task = run.data.resultData.runData[name]?.[0];
		if (task?.executionTime === undefined)
			throw new Error(`way ${way.key}: node ${name} has no executionTime`);
		perNode[name] = task.executionTime;
		ms += task.executionTime;
	}
	const started = run.startedAt ? Date.parse(run.startedAt) : NaN;
	const stopped = run.stoppedAt ? Date.parse(run.stoppedAt) : NaN;
	return {
		ms,
		requests,
		load,
		perNode,
		executionMs: Number.isFinite(stopped - started) ? stopped - started : undefined,
	};
}

interface Runner {
	run(way: Way): Promise<N8nRun>;
	stop(): Promise<void>;
}

async function serverRunner(
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

function prepareSandbox(
	sandbox: Sandbox,
	way: Way,
	window: HistoryWindow,
	latencyMs: number,
): void {
	sandbox.reset();
	if (latencyMs > 0) sandbox.setFaults({ latencyMs });
	if (way.kind === 'history') {
		sandbox.seedRecords({
			...HISTORY_RECORDS,
			startTime: window.startTime + HOUR,
			endTime: window.endTime - 60_000,
		});
	}
}

async function runWay(
	runner: Runner,
	sandbox: Sandbox,
	way: Way,
	window: HistoryWindow,
	latencyMs = 0,
): Promise<RunFigures> {
	prepareSandbox(sandbox, way, window, latencyMs);
	const load = os.loadavg()[0];
	const run = await runner.run(way);
	checkRun(way, run, sandbox);
	return figuresOf(way, run, sandbox.ledger.requests.length, load);
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

async function install(
	sandbox: Sandbox,
	config: RealN8nConfig,
	label: string,
	patches: string[],
	window: HistoryWindow,
): Promise<Installed> {
	log(
		`  bench 5${label ? ` (${label})` : ''}: building the package from the ${config.source} sources${patches.length > 0 ? ` with ${patches.join(', ')}` : ''}`,
	);
	const stage = await buildPackageCopy(config.source, patches);
	const autoMap = autoMapVersion(stage);
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
		historyWindow: window,
		autoMapVersion: autoMap,
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
	unavailable?: string;
}

function perItem(ms: number, count: number): string {
	return `${(ms / count).toFixed(2)} ms`;
}

function loadRange(runs: RunFigures[]): string {
	const loads = runs.map((run) => run.load);
	return `${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`;
}

function medianMs(result: WayResult | undefined): number | undefined {
	return result && result.runs.length > 0 ? median(result.runs.map((run) => run.ms)) : undefined;
}

/** The chain a way is compared with: same kind, same item count, same latency. */
function chainKey(way: Way): string {
	if (way.kind === 'history') return 'hb';
	if (way.kind === 'market') return 'mb';
	return way.count === 1000 ? 'gb' : 'b';
}

/** The table of bench 5 for one latency and variant (markdown, also printed). */
export function realN8nTable(results: WayResult[], latencyMs: number, variant = ''): string {
	const own = results.filter(
		(result) => result.latencyMs === latencyMs && result.variant === variant,
	);
	const lines = [
		'| Way | Items | Node time, median (min–max) | Per item | Chain ÷ this (> 1: faster than the chain) | Requests | Expr./item | Load (1 min) |',
		'|---|---|---|---|---|---|---|---|',
	];
	for (const { way, runs, unavailable } of own) {
		const label = `${way.key}. ${way.label}`;
		if (unavailable !== undefined || runs.length === 0) {
			lines.push(
				`| ${label} | ${way.count} | n/a (${unavailable ?? 'not run'}) | | | | ${way.expressionsPerItem} | |`,
			);
			continue;
		}
		const times = runs.map((run) => run.ms);
		const ms = median(times);
		const chain = own.find((result) => result.way.key === chainKey(way));
		const chainMs = medianMs(chain);
		const versus =
			chainMs === undefined || chain?.way === way ? '' : `${(chainMs / ms).toFixed(2)}×`;
		const requests = [...new Set(runs.map((run) => run.requests))].join('/');
		lines.push(
			`| ${label} | ${way.count} | ${fmtMs(ms)} (${fmtMs(Math.min(...times))}–${fmtMs(Math.max(...times))}) | ${perItem(ms, way.count)} | ${versus} | ${requests} | ${way.expressionsPerItem} | ${loadRange(runs)} |`,
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
	for (const { way, runs, latencyMs, variant } of results) {
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
	const now = Date.now();
	const window: HistoryWindow = { startTime: now - 3 * HOUR, endTime: now };
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
			installs.push(await install(sandbox, config, label, patches, window));
		for (const latencyMs of config.latencyMs > 0 ? [0, config.latencyMs] : [0]) {
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
					const figures = await runWay(
						runners.get(result.variant)!,
						sandbox,
						result.way,
						window,
						result.latencyMs,
					);
					if (round > 0) result.runs.push(figures);
					log(
						`  bench 5 ${round === 0 ? 'warm-up' : `round ${round}/${config.reps}`} ${label}: ${fmtMs(figures.ms)}, ${figures.requests} requests, load ${figures.load.toFixed(2)}`,
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
				const summary = await profileWay(sandbox, installed, key, window);
				if (summary) profiles.push({ key, variant: installed.label, summary });
			}
		}
	} finally {
		for (const runner of runners.values()) await runner.stop();
		for (const installed of installs) await uninstall(installed);
	}

	const rows = results.map(({ way, runs, unavailable, latencyMs, variant }): Row => {
		const value =
			unavailable !== undefined || runs.length === 0
				? `n/a (${unavailable ?? 'not run'})`
				: `${fmtMs(median(runs.map((run) => run.ms)))} (${perItem(median(runs.map((run) => run.ms)), way.count)}/item), ${[...new Set(runs.map((run) => run.requests))].join('/')} requests, load ${loadRange(runs)}`;
		const latency = latencyMs > 0 ? `, +${latencyMs} ms latency` : '';
		return {
			benchmark: name,
			measure: `${variant ? `${variant}: ` : ''}${way.key}. ${way.label}, ${way.count} items${latency}`,
			value,
			target: '',
			verdict: 'info',
		};
	});
	for (const [label] of variants)
		rows.push(
			...targetRows(
				name,
				results.filter((result) => result.variant === label),
				label,
			),
		);
	const how =
		config.mode === 'cli'
			? 'one `n8n execute` per run'
			: 'one `n8n start`, manual runs through the REST API';
	const sections: string[] = [];
	for (const [label] of variants) {
		const title = label ? ` — ${label}` : '';
		sections.push(
			`Loopback (no added latency)${title}, ${how}, median of ${config.reps} runs after a warm-up round:`,
			'',
			realN8nTable(results, 0, label),
			'',
		);
		if (config.latencyMs > 0) {
			sections.push(
				`Same, with ${config.latencyMs} ms of added server latency per request${title}:`,
				'',
				realN8nTable(results, config.latencyMs, label),
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
	sections.push('Chains, per node (median):', '', chainSplit(results));
	return { rows, markdown: sections.join('\n'), profiles };
}

/** Issue #15's targets in real n8n, as far as the ways measured allow (loopback figures). */
function targetRows(name: string, results: WayResult[], variant: string): Row[] {
	const perOrder = (key: string) => {
		const result = results.find(
			(candidate) => candidate.way.key === key && candidate.latencyMs === 0,
		);
		const ms = medianMs(result);
		return ms === undefined || result === undefined ? undefined : ms / result.way.count;
	};
	const rows: Row[] = [];
	const prefix = variant ? `${variant}: ` : '';
	const ratio = (
		chain: string,
		way: string,
		target: number | undefined,
		measure: string,
		targetText: string,
	) => {
		const chainPerItem = perOrder(chain);
		const wayPerItem = perOrder(way);
		if (chainPerItem === undefined || wayPerItem === undefined) {
			rows.push({
				benchmark: name,
				measure: prefix + measure,
				value: 'n/a',
				target: targetText,
				verdict: target === undefined ? 'info' : 'TODO',
			});
			return;
		}
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
		'b',
		'i',
		10,
		'target: Create Many auto-mapped (i) vs chain (b), 200 orders: chain ÷ node per order',
		'>= 10×',
	);
	ratio(
		'gb',
		'gi',
		10,
		'target: Create Many auto-mapped (gi) vs chain (gb), 1,000 orders',
		'>= 10×',
	);
	ratio('b', 'a2', 1, 'target: Create, 2 mapped expressions (a2) vs chain (b, maps 2)', '>= 1×');
	ratio('b', 'e', 1.5, 'target: Create, fixed fields (e) vs chain (b)', '>= 1.5×');
	ratio('b', 'a', undefined, 'for reference: Create, 5 mapped expressions (a) vs chain (b)', '');
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
	window: HistoryWindow,
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
				const figures = await runWay(runner, sandbox, way, window, 0);
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
