/**
 * The limits section (issue 38's "Done when"): the node's ways in a real n8n 2.41.1 against the
 * sandbox at its default, documented limits (per API key 20 order and 5 query requests a second,
 * over that 429 / 0003 and a minute's suspension, 418 for requests sent into it; and the weight
 * budget of 6,000 a minute), 20 ms of server latency, 200 items, node version 2 with its defaults
 * (no option set, the credential's default rates), each against the users' chain with the HTTP
 * Request node's Batching at the same rates (20 items a second for orders, 5 for reads).
 *
 * Each way runs once (its time is set by the exchange's floor, not by noise): 1.1 s of quiet, so
 * that the key's one-second window is empty on both sides (the sandbox's limiter and the node's
 * pacer in n8n), then the sandbox is reset (ledger, limiter, faults), the latency set, the way's
 * data seeded (open orders to cancel, history records), and the workflow run through n8n's REST
 * API. A way that met a suspension is followed by the suspension's length of quiet.
 *
 * Figures per way, from the sandbox's ledger: requests (by class), 429s (`rateLimited`), requests
 * into a suspension (418, `intoSuspension`), other refusals; time = the measured nodes' n8n
 * `executionTime` (the pair: from the first execution's start to the last one's end, n8n's
 * startedAt / stoppedAt); the sandbox's span from the first request to the last.
 *
 * Env: BENCH_LIMITS_LATENCY_MS (20), BENCH_LIMITS_WAYS (keys, default all: Lc,Lcb,Lm,Lp,Lpb,Lk,
 * Lkb,Lh,pair), BENCH_N8N_SOURCE (worktree | a git revision, as bench 5).
 */
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';

import { DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import { DEFAULT_RATE_LIMIT } from '../sandbox/constants';
import { importCredentials, importWorkflow } from '../tools/n8n/cli';
import { createN8nEnv, createTempUserFolder, removeUserFolder } from '../tools/n8n/environment';
import { packAndInstallPackage } from '../tools/n8n/package';
import type { N8nRun } from '../tools/n8n/run-data';
import { getRuntime, isRuntimeInstalled } from '../tools/n8n/runtime';
import {
	buildPackageCopy,
	packageFacts,
	seedCancelOrders,
	serverRunner,
	type Runner,
} from './realN8n';
import {
	LIMITS_HISTORY_RECORDS,
	LIMITS_PAIR,
	TRADING_CREDENTIAL,
	CRYPTO_CREDENTIAL,
	limitsWays,
	type HistoryWindow,
	type Way,
} from './realN8nWorkflows';
import { fmtMs, median, type Row } from './stats';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOUR = 3_600_000;
/** Quiet before each way: the key's one-second window empties on both sides. */
const QUIET_MS = 1_100;
const NAME = 'limits. Real n8n 2.41.1 at the exchange’s documented rates';

export interface LimitFigures {
	key: string;
	label: string;
	items: number;
	requests: number;
	orderRequests: number;
	queryRequests: number;
	rateLimited: number;
	intoSuspension: number;
	/** Other refusals, as "status code × n". */
	otherRefusals: string;
	/** The measured nodes' executionTime (the pair: first start to last end). */
	ms: number;
	/** n8n's startedAt → stoppedAt of the execution. */
	executionMs?: number;
	/** The sandbox's server clock from the first request to the last. */
	spanMs: number;
	/**
	 * Median of at(i + limit) − at(i) over the requests of the way's main class (limit: that class's
	 * rate): how long the pacing took per window of `limit` requests (the floor is 1000 ms).
	 */
	windowStepMs?: number;
	outputItems: number;
	failedItems: number;
	runError?: string;
	load: number;
}

interface Setting {
	window: HistoryWindow;
	latencyMs: number;
	cancelOrderIds: readonly string[];
}

function prepare(sandbox: Sandbox, ways: Way[], setting: Setting): void {
	sandbox.reset();
	if (setting.latencyMs > 0) sandbox.setFaults({ latencyMs: setting.latencyMs });
	if (ways.some((way) => way.kind === 'history')) {
		sandbox.seedRecords({
			...LIMITS_HISTORY_RECORDS,
			startTime: setting.window.startTime + HOUR,
			endTime: setting.window.endTime - 60_000,
		});
	}
	if (ways.some((way) => way.kind === 'cancel')) {
		const ids = seedCancelOrders(sandbox);
		if (ids.join() !== setting.cancelOrderIds.join())
			throw new Error(`limits: the seeded open orders got other IDs (${ids[0]}…) than the input`);
	}
}

function ledgerFigures(
	sandbox: Sandbox,
): Pick<
	LimitFigures,
	| 'requests'
	| 'orderRequests'
	| 'queryRequests'
	| 'rateLimited'
	| 'intoSuspension'
	| 'otherRefusals'
	| 'spanMs'
	| 'windowStepMs'
> {
	const requests = sandbox.ledger.requests;
	const stats = sandbox.rateLimitStats();
	const other = new Map<string, number>();
	for (const request of requests) {
		if (request.limit !== undefined || (request.status >= 200 && request.status < 300)) continue;
		const key = `${request.status}${request.code === undefined ? '' : ` ${request.code}`}`;
		other.set(key, (other.get(key) ?? 0) + 1);
	}
	const at = requests.map((request) => request.at);
	const orders = requests.filter((request) => request.rateClass === 'order');
	const queries = requests.filter((request) => request.rateClass === 'query');
	const rates = sandbox.requestRates();
	const [main, limit] =
		orders.length >= queries.length
			? [orders, rates ? rates.orderPerSecond : 20]
			: [queries, rates ? rates.queryPerSecond : 5];
	const steps = main.slice(limit).map((request, index) => request.at - main[index].at);
	return {
		windowStepMs: steps.length > 0 ? median(steps) : undefined,
		requests: requests.length,
		orderRequests: requests.filter((request) => request.rateClass === 'order').length,
		queryRequests: requests.filter((request) => request.rateClass === 'query').length,
		rateLimited: stats.rateLimited,
		intoSuspension: stats.intoSuspension,
		otherRefusals: [...other].map(([key, count]) => `${key} × ${count}`).join(', '),
		spanMs: at.length > 1 ? Math.max(...at) - Math.min(...at) : 0,
	};
}

function runFigures(
	way: Way,
	run: N8nRun,
): Pick<LimitFigures, 'ms' | 'executionMs' | 'outputItems' | 'failedItems' | 'runError'> {
	let ms = 0;
	for (const name of way.measured) {
		const time = run.data?.resultData?.runData?.[name]?.[0]?.executionTime;
		ms += time ?? NaN;
	}
	const items = run.data?.resultData?.runData?.[way.outputNode]?.[0]?.data?.main?.[0] ?? [];
	const failedItems = items.filter(
		(item) =>
			item.json.error !== undefined ||
			item.json.success === false ||
			item.json.outcome === 'rejected',
	).length;
	const error = run.data?.resultData?.error;
	const started = run.startedAt ? Date.parse(run.startedAt) : NaN;
	const stopped = run.stoppedAt ? Date.parse(run.stoppedAt) : NaN;
	return {
		ms,
		executionMs: Number.isFinite(stopped - started) ? stopped - started : undefined,
		outputItems: items.length,
		failedItems,
		runError:
			error === undefined
				? undefined
				: `${error.message ?? ''} ${String(error.description ?? '')}`.trim().slice(0, 160),
	};
}

/** Quiet after a way: the key's window, or the whole suspension if the way met one. */
async function quiet(sandbox: Sandbox, figures: LimitFigures | undefined): Promise<void> {
	const rates = sandbox.requestRates();
	const suspended =
		figures !== undefined && figures.rateLimited + figures.intoSuspension > 0 && rates;
	if (suspended) log(`  limits: ${figures.key} met a suspension; waiting ${rates.suspensionMs} ms`);
	await sleep(QUIET_MS + (suspended ? rates.suspensionMs : 0));
}

async function runOne(
	runner: Runner,
	sandbox: Sandbox,
	way: Way,
	setting: Setting,
): Promise<LimitFigures> {
	prepare(sandbox, [way], setting);
	const load = os.loadavg()[0];
	const run = await runner.run(way);
	return {
		key: way.key,
		label: way.label,
		items: way.count,
		...ledgerFigures(sandbox),
		...runFigures(way, run),
		load,
	};
}

/** Both Create workflows of the pair started at once in the same n8n, on the same key. */
async function runPair(
	runner: Runner,
	sandbox: Sandbox,
	ways: Way[],
	setting: Setting,
): Promise<{ pair: LimitFigures; each: LimitFigures[] }> {
	prepare(sandbox, ways, setting);
	const load = os.loadavg()[0];
	const runs = await Promise.all(ways.map((way) => runner.run(way)));
	const ledger = ledgerFigures(sandbox);
	const each = ways.map((way, index) => ({
		key: way.key,
		label: way.label,
		items: way.count,
		...ledger,
		...runFigures(way, runs[index]),
		load,
	}));
	const starts = runs.map((run) => Date.parse(run.startedAt ?? ''));
	const stops = runs.map((run) => Date.parse(run.stoppedAt ?? ''));
	const wall = Math.max(...stops) - Math.min(...starts);
	const pair: LimitFigures = {
		key: 'pair',
		label: `two Create workflows of ${ways[0].count} items started at once (${ways.map((way) => way.key).join(' + ')})`,
		items: ways.reduce((sum, way) => sum + way.count, 0),
		...ledger,
		ms: wall,
		executionMs: wall,
		outputItems: each.reduce((sum, figures) => sum + figures.outputItems, 0),
		failedItems: each.reduce((sum, figures) => sum + figures.failedItems, 0),
		runError: each.map((figures) => figures.runError).find((error) => error !== undefined),
		load,
	};
	return { pair, each };
}

interface Target {
	way: string;
	target: string;
	figures: string;
	met: boolean | undefined;
}

function targetsOf(results: Map<string, LimitFigures>): Target[] {
	const targets: Target[] = [];
	const no429 = (key: string, what: string) => {
		const figures = results.get(key);
		targets.push({
			way: what,
			target: '0 × 429 (and 0 into a suspension)',
			figures:
				figures === undefined
					? 'not run'
					: `${figures.rateLimited} × 429, ${figures.intoSuspension} into a suspension`,
			met: figures === undefined ? undefined : figures.rateLimited + figures.intoSuspension === 0,
		});
	};
	const within = (key: string, what: string, limitMs: number, floor: string) => {
		const figures = results.get(key);
		const complete =
			figures !== undefined &&
			figures.runError === undefined &&
			figures.failedItems === 0 &&
			figures.outputItems > 0;
		targets.push({
			way: what,
			target: `time ≤ ${fmtMs(limitMs)}${floor ? ` (${floor})` : ''}`,
			figures:
				figures === undefined
					? 'not run'
					: `${fmtMs(figures.ms)}${complete ? '' : ` (run incomplete: ${figures.runError ?? `${figures.failedItems} failed items`})`}`,
			met: figures === undefined ? undefined : complete && figures.ms <= limitMs,
		});
	};
	no429('Lc', 'Create, 200');
	within('Lc', 'Create, 200', 11_000, '1.1 × the floor of 10 s at 20 a second');
	const create = results.get('Lc');
	const chain = results.get('Lcb');
	targets.push({
		way: 'Create, 200',
		target: 'chain (Batching 20 / 1 s) ÷ node ≥ 1.0',
		figures:
			create === undefined || chain === undefined
				? 'not run'
				: `${(chain.ms / create.ms).toFixed(2)} (chain ${fmtMs(chain.ms)}, node ${fmtMs(create.ms)})`,
		met: create === undefined || chain === undefined ? undefined : chain.ms / create.ms >= 1,
	});
	no429('Lm', 'Create Many, 200');
	within('Lm', 'Create Many, 200', 1_500, '');
	no429('Lp', 'Get Price, 200 (mixed symbols)');
	within('Lp', 'Get Price, 200 (mixed symbols)', 1_000, '');
	no429('Lk', 'Cancel, 200');
	within('Lk', 'Cancel, 200', 11_000, '1.1 × the floor of 10 s at 20 a second');
	no429('Lh', 'Get History, Return All, 20 pages');
	within('Lh', 'Get History, Return All, 20 pages', 4_400, '1.1 × the floor of 4 s at 5 a second');
	no429('pair', 'Two Create workflows at once, same key');
	return targets;
}

export function limitsTable(figures: LimitFigures[], chainOf: Record<string, string>): string {
	const lines = [
		'| Way | Items | Requests (order / query) | 429 | Into suspension | Other refusals | Time (n8n) | Sandbox span | Window step | Output items | Chain ÷ node | Load |',
		'|---|---|---|---|---|---|---|---|---|---|---|---|',
	];
	const byKey = new Map(figures.map((f) => [f.key, f]));
	for (const f of figures) {
		const chain = chainOf[f.key] === undefined ? undefined : byKey.get(chainOf[f.key]);
		const versus = chain === undefined ? '' : `${(chain.ms / f.ms).toFixed(2)} (vs ${chain.key})`;
		const output = `${f.outputItems}${f.failedItems > 0 ? ` (${f.failedItems} failed)` : ''}${f.runError ? `; run failed: ${f.runError}` : ''}`;
		lines.push(
			`| ${f.key}. ${f.label} | ${f.items} | ${f.requests} (${f.orderRequests} / ${f.queryRequests}) | ${f.rateLimited} | ${f.intoSuspension} | ${f.otherRefusals || '0'} | ${fmtMs(f.ms)} | ${fmtMs(f.spanMs)} | ${f.windowStepMs === undefined ? '' : fmtMs(f.windowStepMs)} | ${output} | ${versus} | ${f.load.toFixed(2)} |`,
		);
	}
	return lines.join('\n');
}

export interface LimitsResult {
	rows: Row[];
	markdown: string;
	skipped?: string;
}

const DEFAULT_KEYS = ['Lc', 'Lcb', 'Lm', 'Lp', 'Lpb', 'Lk', 'Lkb', 'Lh', 'pair'];
/** The chain each node way is compared with. */
const CHAIN_OF: Record<string, string> = { Lc: 'Lcb', Lp: 'Lpb', Lk: 'Lkb' };

/**
 * Runs the section in its own sandbox (the default, documented limits: the other benches' sandbox
 * runs without a weight budget) and its own n8n.
 */
export async function benchLimits(): Promise<LimitsResult> {
	if (!isRuntimeInstalled(getRuntime())) {
		const skipped =
			'skipped: the n8n runtime is not installed (bash tools/n8n-runtime/install.sh, ~5 min, 2.8 GB)';
		return {
			rows: [{ benchmark: NAME, measure: 'limits', value: skipped, target: '', verdict: 'info' }],
			markdown: skipped,
			skipped,
		};
	}
	const latencyMs = Number(process.env.BENCH_LIMITS_LATENCY_MS ?? 20);
	const keys =
		process.env.BENCH_LIMITS_WAYS === undefined
			? DEFAULT_KEYS
			: process.env.BENCH_LIMITS_WAYS.split(',').map((part) => part.trim());
	const source = process.env.BENCH_N8N_SOURCE ?? 'worktree';
	const started = Date.now();
	// Lenient symbol rules as bench 5 (the orders are tiny); limits and weight budget: the defaults.
	const sandbox = await startSandbox({ symbolRules: 'lenient' });
	const rates = sandbox.requestRates();
	let stage: string | undefined;
	let userFolder: string | undefined;
	let runner: Runner | undefined;
	const figures: LimitFigures[] = [];
	const pairEach: LimitFigures[] = [];
	try {
		const now = Date.now();
		const window: HistoryWindow = { startTime: now - 3 * HOUR, endTime: now };
		sandbox.reset();
		const cancelOrderIds = seedCancelOrders(sandbox);
		sandbox.reset();
		log(`  limits: building the package from the ${source} sources`);
		stage = await buildPackageCopy(source, []);
		const facts = packageFacts(stage);
		userFolder = await createTempUserFolder('n8n-bench-limits-');
		await packAndInstallPackage(userFolder, { repoRoot: stage });
		const env = await createN8nEnv({
			userFolder,
			extra: { N8N_DISABLED_MODULES: 'mcp-registry', N8N_LOG_LEVEL: 'warn' },
		});
		await importCredentials(env, [
			{
				id: TRADING_CREDENTIAL.id,
				name: TRADING_CREDENTIAL.name,
				type: 'tradingServiceApi',
				// The credential's defaults otherwise: 20 order / 5 query requests a second, 1 process.
				data: {
					apiKey: DEMO_KEYS.master.apiKey,
					secretKey: DEMO_KEYS.master.secret,
					baseUrl: sandbox.baseUrl,
				},
			},
			{
				id: CRYPTO_CREDENTIAL.id,
				name: CRYPTO_CREDENTIAL.name,
				type: 'crypto',
				data: { hmacSecret: DEMO_KEYS.master.secret },
			},
		]);
		const ways = limitsWays({
			baseUrl: sandbox.baseUrl,
			historyWindow: window,
			autoMapVersion: facts.autoMap,
			newestVersion: facts.newestVersion,
			orderIdLocator: facts.orderIdLocator,
			cancelOrderIds,
		});
		await importWorkflow(
			env,
			ways.map((way) => way.workflow),
		);
		runner = await serverRunner(env);
		const setting: Setting = { window, latencyMs, cancelOrderIds };
		const find = (key: string) => ways.find((way) => way.key === key)!;
		log(
			`  limits: n8n up; node version ${facts.newestVersion}; sandbox rates ${JSON.stringify(rates)}, ${latencyMs} ms latency`,
		);
		// Warm-up (not counted): n8n's first run of the node loads and compiles what the others reuse.
		await quiet(sandbox, undefined);
		const warm = await runOne(runner, sandbox, find('Lm'), setting);
		log(
			`  limits warm-up Lm: ${fmtMs(warm.ms)}, ${warm.requests} requests, ${warm.rateLimited} × 429`,
		);
		let last: LimitFigures | undefined = warm;
		for (const key of keys) {
			await quiet(sandbox, last);
			if (key === 'pair') {
				const { pair, each } = await runPair(runner, sandbox, LIMITS_PAIR.map(find), setting);
				last = pair;
				figures.push(pair);
				pairEach.push(...each);
			} else {
				last = await runOne(runner, sandbox, find(key), setting);
				figures.push(last);
			}
			log(
				`  limits ${last.key}: ${fmtMs(last.ms)} (span ${fmtMs(last.spanMs)}, window step ${last.windowStepMs === undefined ? 'n/a' : fmtMs(last.windowStepMs)}), ${last.requests} requests, ${last.rateLimited} × 429, ${last.intoSuspension} into suspension${last.otherRefusals ? `, other: ${last.otherRefusals}` : ''}, ${last.outputItems} items${last.runError ? `, run failed: ${last.runError}` : ''}, load ${last.load.toFixed(2)}`,
			);
		}
	} finally {
		if (runner) await runner.stop();
		if (userFolder) await removeUserFolder(userFolder);
		if (stage) await fsp.rm(stage, { recursive: true, force: true });
		await sandbox.stop();
	}
	const byKey = new Map(figures.map((f) => [f.key, f]));
	const targets = targetsOf(byKey);
	const rows: Row[] = figures.map((f) => ({
		benchmark: NAME,
		measure: `${f.key}. ${f.label}, ${f.items} items, +${latencyMs} ms`,
		value: `${fmtMs(f.ms)}, ${f.requests} requests, ${f.rateLimited} × 429, ${f.intoSuspension} into suspension${f.otherRefusals ? `, other refusals ${f.otherRefusals}` : ''}${f.runError ? `, run failed` : ''}`,
		target: '',
		verdict: 'info',
	}));
	rows.push(
		...targets.map(
			(t): Row => ({
				benchmark: NAME,
				measure: `target: ${t.way}`,
				value: t.figures,
				target: t.target,
				verdict: t.met === undefined ? 'TODO' : t.met ? 'met' : 'NOT MET',
			}),
		),
	);
	const markdown = [
		`Limits (${new Date().toISOString()}): real n8n 2.41.1, one \`n8n start\`, the sandbox at its default limits (${JSON.stringify(rates)}, weight budget ${DEFAULT_RATE_LIMIT.maxWeight} per ${DEFAULT_RATE_LIMIT.windowMs / 1000} s), ${latencyMs} ms of server latency, node version 2 with its defaults and the credential's default rates; one run per way, ${QUIET_MS} ms of quiet and a sandbox reset before each; the section took ${fmtMs(Date.now() - started)}.`,
		'',
		limitsTable(figures, CHAIN_OF),
		'',
		pairEach.length > 0
			? `The pair, each workflow: ${pairEach.map((f) => `${f.key} ${fmtMs(f.ms)} (execution ${f.executionMs === undefined ? 'n/a' : fmtMs(f.executionMs)}, ${f.outputItems} items)`).join('; ')}.\n`
			: '',
		'| Way | Target | Measured | Met |',
		'|---|---|---|---|',
		...targets.map(
			(t) =>
				`| ${t.way} | ${t.target} | ${t.figures} | ${t.met === undefined ? 'not run' : t.met ? 'met' : '**not met**'} |`,
		),
	].join('\n');
	return { rows, markdown };
}
