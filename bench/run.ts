/**
 * npm run bench — benchmarks of the Trading Service node against the sandbox on loopback.
 * Every comparison is measured side by side in one run; figures are medians of several
 * repetitions. See bench/README.md for what is compared and the last recorded figures.
 *
 * Environment: BENCH_REPS (default 9) repetitions for benches 1 and 2; BENCH_LATENCY_MS (20) and
 * BENCH_LATENCY_REPS (3): benches 1 and 2 again with that much server latency (0: skip);
 * BENCH_HISTORY_REPS (default 3) child runs for bench 3; `--only 1,5` or BENCH_ONLY=1,5 to run a
 * subset; bench 5 (real n8n) reads BENCH_N8N_* (see realN8n.ts) and is skipped, with a message,
 * when the n8n runtime is not installed. `--only limits` (or BENCH_ONLY=limits): the limits section
 * (limits.ts, real n8n at the exchange's documented request rates; BENCH_LIMITS_*).
 */
import './preload';

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { requestsTo } from '../tools/harness/node';
import { DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import { BareClient } from './bareClient';
import { benchBusinessKeys } from './businessKeys';
import { benchSettling } from './settling';
import { benchFutures } from './futures';
import { runFloorNode, runNode } from './nodeRun';
import { fmtBytes, fmtMs, median, printTable, timed, type Row } from './stats';

const HISTORY = '/api/v1/account/balanceFlow';
const BATCH = '/api/v1/spot/batchOrders';
const SINGLE = '/api/v1/spot/new/order';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const REPS = Number(process.env.BENCH_REPS ?? 9);
/** Added server latency of the "real network" passes of benches 1 and 2, and their repetitions. */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const LATENCY_REPS = Number(process.env.BENCH_LATENCY_REPS ?? 3);
const HISTORY_REPS = Number(process.env.BENCH_HISTORY_REPS ?? 3);
/** `npm run bench -- --only 1,5` (or `--only=5`), else BENCH_ONLY, else every bench. */
function onlyFromArgs(argv: string[]): string | undefined {
	const index = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
	if (index === -1) return undefined;
	return argv[index].includes('=') ? argv[index].slice('--only='.length) : argv[index + 1];
}
const ONLY = (
	onlyFromArgs(process.argv.slice(2)) ??
	process.env.BENCH_ONLY ??
	'1,2,3,4,5,6,8,9,limits'
)
	.split(',')
	.map((part) => part.trim());

const log = (line: string) => process.stderr.write(`${line}\n`);

function verdict(met: boolean): Row['verdict'] {
	return met ? 'met' : 'NOT MET';
}

// ------------------------------------------------------------------ 1. node overhead

interface OverheadFigures {
	nodeMs: number;
	bareMs: number;
	keepAliveMs: number;
	floorMs: number;
	/** node / floor of each repetition (both timed in the same repetition), for the spread. */
	floorRatios: number[];
	nodeRequests: number;
	bareRequests: number;
}

/**
 * N history calls (limit 50, the same 50 records each) three ways, alternating which goes first:
 * the node (one workflow run with N input items, one request per item) and the bare client with
 * the same connection policy as n8n (new connection per call), plus the bare client with
 * keep-alive for reference. Returns medians.
 */
async function measureOverhead(
	sandbox: Sandbox,
	N: number,
	latencyMs: number,
	reps: number,
	warmUps = 2,
): Promise<OverheadFigures> {
	const LIMIT = 50;
	sandbox.reset();
	sandbox.setFaults({ latencyMs });
	const now = Date.now();
	sandbox.seedRecords({
		flowType: 32,
		count: 2000,
		startTime: now - 2 * HOUR,
		endTime: now - 60_000,
		seed: 7,
	});
	const startTime = now - 3 * HOUR;
	const endTime = now;

	const parameters = {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(startTime).toISOString(),
		endTime: new Date(endTime).toISOString(),
		returnAll: false,
		limit: LIMIT,
	};
	const inputItems = Array.from({ length: N }, () => ({ json: {} }));
	const viaNode = async () => {
		const before = sandbox.ledger.requests.length;
		const run = await runNode(sandbox, parameters, inputItems);
		if (run.error) throw run.error;
		if (run.items.length !== N * LIMIT)
			throw new Error(`node returned ${run.items.length} records`);
		return sandbox.ledger.requests.length - before;
	};
	const floorQuery = {
		startTime: String(startTime),
		endTime: String(endTime),
		limit: String(LIMIT),
		flowType: 32,
	};
	const viaFloor = async () => {
		const run = await runFloorNode(sandbox, floorQuery, inputItems);
		if (run.error) throw run.error;
		if (run.items.length !== N * LIMIT)
			throw new Error(`floor node returned ${run.items.length} records`);
	};
	const bareParams: Array<[string, string | number]> = [
		['startTime', String(startTime)],
		['endTime', String(endTime)],
		['limit', String(LIMIT)],
		['flowType', 32],
	];
	const credentials = {
		apiKey: DEMO_KEYS.master.apiKey,
		secret: DEMO_KEYS.master.secret,
		baseUrl: sandbox.baseUrl,
	};
	const bareWith = (client: BareClient) => async () => {
		const before = sandbox.ledger.requests.length;
		for (let call = 0; call < N; call++) {
			const response = await client.signed('GET', HISTORY, bareParams);
			if (
				response.status !== 200 ||
				!Array.isArray(response.body) ||
				response.body.length !== LIMIT
			) {
				throw new Error(
					`bare call failed: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`,
				);
			}
		}
		return sandbox.ledger.requests.length - before;
	};
	const bare = new BareClient(credentials);
	const bareKeepAlive = new BareClient(credentials, { keepAlive: true });

	const nodeMs: number[] = [];
	const bareMs: number[] = [];
	const keepAliveMs: number[] = [];
	const floorMs: number[] = [];
	const floorRatios: number[] = [];
	let nodeRequests = 0;
	let bareRequests = 0;
	for (let rep = 0; rep < warmUps + reps; rep++) {
		// Alternate which side goes first so drift (GC, CPU frequency) hits both alike.
		const order =
			rep % 2 === 0 ? ['node', 'bare', 'floor', 'keep'] : ['bare', 'node', 'keep', 'floor'];
		for (const side of order) {
			if (side === 'node') {
				const { ms, value } = await timed(viaNode);
				nodeRequests = value;
				if (rep >= warmUps) nodeMs.push(ms);
			} else if (side === 'bare') {
				const { ms, value } = await timed(bareWith(bare));
				bareRequests = value;
				if (rep >= warmUps) bareMs.push(ms);
			} else if (side === 'floor') {
				const { ms } = await timed(viaFloor);
				if (rep >= warmUps) floorMs.push(ms);
			} else {
				const { ms } = await timed(bareWith(bareKeepAlive));
				if (rep >= warmUps) keepAliveMs.push(ms);
			}
		}
		if (rep >= warmUps) floorRatios.push(nodeMs[nodeMs.length - 1] / floorMs[floorMs.length - 1]);
		log(`  bench 1 (latency ${latencyMs} ms) rep ${rep + 1}/${warmUps + reps}`);
	}
	bare.close();
	bareKeepAlive.close();
	sandbox.clearFaults();
	return {
		nodeMs: median(nodeMs),
		bareMs: median(bareMs),
		keepAliveMs: median(keepAliveMs),
		floorMs: median(floorMs),
		floorRatios,
		nodeRequests,
		bareRequests,
	};
}

async function benchOverhead(sandbox: Sandbox): Promise<Row[]> {
	const N = Number(process.env.BENCH_CALLS ?? 200);
	const LATENCY = 2;
	const loopback = await measureOverhead(sandbox, N, 0, REPS);
	const delayed = await measureOverhead(sandbox, N, LATENCY, Math.max(3, Math.ceil(REPS / 2)));
	// Code and connections are warm after the loopback passes: no warm-up at LATENCY_MS.
	const network =
		LATENCY_MS > 0 ? await measureOverhead(sandbox, N, LATENCY_MS, LATENCY_REPS, 0) : undefined;
	const ratio = loopback.nodeMs / loopback.bareMs;
	const name = `1. Node overhead (${N} signed history calls, 50 records each)`;
	const perCall = (ms: number) => `${fmtMs(ms)} (${fmtMs(ms / N)}/call)`;
	const requestsOk = [loopback, delayed, ...(network ? [network] : [])].every(
		(figures) => figures.nodeRequests === N && figures.bareRequests === N,
	);
	const networkRows: Row[] = network
		? [
				{
					benchmark: name,
					measure: `same with ${LATENCY_MS} ms server latency (median of ${LATENCY_REPS}): node / bare / floor`,
					value: `${perCall(network.nodeMs)} / ${perCall(network.bareMs)} / ${perCall(network.floorMs)}; node / bare = ${(network.nodeMs / network.bareMs).toFixed(3)}, node / floor = ${(network.nodeMs / network.floorMs).toFixed(3)}`,
					target: '',
					verdict: 'info',
				},
			]
		: [];
	return [
		{
			benchmark: name,
			measure: 'node execute (1 run, N items), median',
			value: perCall(loopback.nodeMs),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'bare node:http + own signer, new connection per call, median',
			value: perCall(loopback.bareMs),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'ratio node / bare (same connection policy)',
			value: ratio.toFixed(3),
			target: '<= 1.15',
			verdict: verdict(ratio <= 1.15),
		},
		{
			benchmark: name,
			measure: 'n8n floor: minimal node, same helper call per item, median',
			value: `${perCall(loopback.floorMs)}; node / floor = ${(loopback.nodeMs / loopback.floorMs).toFixed(3)}, floor / bare = ${(loopback.floorMs / loopback.bareMs).toFixed(3)}`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: `node / n8n floor: median of the ${loopback.floorRatios.length} per-repetition ratios (min–max)`,
			value: `${median(loopback.floorRatios).toFixed(3)} (${Math.min(...loopback.floorRatios).toFixed(3)}–${Math.max(...loopback.floorRatios).toFixed(3)})`,
			target: '<= 1.05',
			verdict: verdict(median(loopback.floorRatios) <= 1.05),
		},
		{
			benchmark: name,
			measure: 'for reference: bare with keep-alive, median',
			value: `${perCall(loopback.keepAliveMs)}; node / this = ${(loopback.nodeMs / loopback.keepAliveMs).toFixed(2)}`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: `same with ${LATENCY} ms server latency: node / bare`,
			value: `${perCall(delayed.nodeMs)} / ${perCall(delayed.bareMs)} = ${(delayed.nodeMs / delayed.bareMs).toFixed(3)}`,
			target: '',
			verdict: 'info',
		},
		...networkRows,
		{
			benchmark: name,
			measure: 'requests node / bare, each pass',
			value: `${loopback.nodeRequests} / ${loopback.bareRequests}`,
			target: `${N} / ${N}`,
			verdict: verdict(requestsOk),
		},
	];
}

// ------------------------------------------------------------------ 2. batch throughput

async function benchBatch(sandbox: Sandbox): Promise<Row[]> {
	const ORDERS = 1000;
	const inputItems = Array.from({ length: ORDERS }, () => ({ json: {} }));
	const orderFields = {
		resource: 'order',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '100',
		quantity: '0.001',
	};
	let execution = 0;
	const runOnce = async (operation: 'createMany' | 'create', latencyMs = 0) => {
		sandbox.reset();
		if (latencyMs > 0) sandbox.setFaults({ latencyMs });
		execution++;
		const parameters: IDataObject = {
			...orderFields,
			operation,
			...(operation === 'createMany' ? { inputMode: 'items' } : {}),
		};
		const {
			ms,
			cpuMs,
			value: run,
		} = await timed(() =>
			runNode(sandbox, parameters, inputItems, `bench-${operation}-${execution}`),
		);
		if (run.error) throw run.error;
		const placed = sandbox.ledger.orders.length;
		const okItems = run.items.filter((item) =>
			operation === 'create' ? typeof item.json.orderId === 'string' : item.json.success === true,
		).length;
		if (placed !== ORDERS || okItems !== ORDERS || run.items.length !== ORDERS) {
			throw new Error(
				`${operation}: ${placed} orders placed, ${okItems}/${run.items.length} items ok`,
			);
		}
		return {
			ms,
			cpuMs,
			requests: requestsTo(sandbox, operation === 'createMany' ? BATCH : SINGLE).length,
			total: sandbox.ledger.requests.length,
		};
	};
	const manyMs: number[] = [];
	const singleMs: number[] = [];
	const manyCpu: number[] = [];
	const singleCpu: number[] = [];
	let manyRequests = 0;
	let singleRequests = 0;
	const warmUps = 1;
	const reps = REPS;
	for (let rep = 0; rep < warmUps + reps; rep++) {
		const order: Array<'createMany' | 'create'> =
			rep % 2 === 0 ? ['createMany', 'create'] : ['create', 'createMany'];
		for (const operation of order) {
			const result = await runOnce(operation);
			if (result.total !== result.requests)
				throw new Error(`${operation}: unexpected extra requests`);
			if (operation === 'createMany') {
				manyRequests = result.requests;
				if (rep >= warmUps) manyMs.push(result.ms);
				if (rep >= warmUps) manyCpu.push(result.cpuMs);
			} else {
				singleRequests = result.requests;
				if (rep >= warmUps) singleMs.push(result.ms);
				if (rep >= warmUps) singleCpu.push(result.cpuMs);
			}
		}
		log(`  bench 2 rep ${rep + 1}/${warmUps + reps}`);
	}
	const speedup = median(singleMs) / median(manyMs);
	const name = `2. Batch throughput (${ORDERS} LIMIT orders, one symbol)`;
	const networkRows: Row[] = [];
	if (LATENCY_MS > 0) {
		// What a user on a real network sees: every request waits LATENCY_MS for its answer.
		const networkMany: number[] = [];
		const networkSingle: number[] = [];
		for (let rep = 0; rep < LATENCY_REPS; rep++) {
			const order: Array<'createMany' | 'create'> =
				rep % 2 === 0 ? ['createMany', 'create'] : ['create', 'createMany'];
			for (const operation of order) {
				const result = await runOnce(operation, LATENCY_MS);
				(operation === 'createMany' ? networkMany : networkSingle).push(result.ms);
			}
			log(`  bench 2 (latency ${LATENCY_MS} ms) rep ${rep + 1}/${LATENCY_REPS}`);
		}
		sandbox.clearFaults();
		networkRows.push({
			benchmark: name,
			measure: `same with ${LATENCY_MS} ms server latency (median of ${LATENCY_REPS}): Create Many / 1000 x Create`,
			value: `${fmtMs(median(networkMany))} / ${fmtMs(median(networkSingle))} = ${(median(networkSingle) / median(networkMany)).toFixed(1)}x`,
			target: '',
			verdict: 'info',
		});
	}
	return [
		{
			benchmark: name,
			measure: 'requests: Create Many / Create x1000',
			value: `${manyRequests} / ${singleRequests}`,
			target: '50 / 1000',
			verdict: verdict(manyRequests === 50 && singleRequests === 1000),
		},
		{
			benchmark: name,
			measure: 'wall time Create Many, median',
			value: fmtMs(median(manyMs)),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'wall time 1000 x Create, median',
			value: fmtMs(median(singleMs)),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'speed-up Create Many vs Create',
			value: `${speedup.toFixed(1)}x`,
			target: '>= 10x',
			verdict: verdict(speedup >= 10),
		},
		{
			benchmark: name,
			measure: 'for reference: CPU time (client + in-process sandbox), medians',
			value: `${fmtMs(median(manyCpu))} / ${fmtMs(median(singleCpu))} = ${(median(singleCpu) / median(manyCpu)).toFixed(1)}x`,
			target: '',
			verdict: 'info',
		},
		...networkRows,
	];
}

// ------------------------------------------------------------------ 3. history Return All

interface ChildResult {
	wallMs: number;
	records: number;
	uniqueIds: number;
	jsonBytes: number;
	peakHeapGrowth: number;
	retainedHeapGrowth: number;
	peakRssGrowth: number;
	samples: number;
}

function runChild<T = ChildResult>(
	env: Record<string, string>,
	nodeFlags: string[] = [],
	file = 'historyMemory.child.ts',
): Promise<T> {
	const child = path.join(__dirname, file);
	return new Promise((resolve, reject) => {
		const proc = spawn(
			process.execPath,
			[
				'--expose-gc',
				...nodeFlags,
				'-r',
				require.resolve('ts-node/register/transpile-only'),
				child,
			],
			{
				env: { ...process.env, ...env },
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		let out = '';
		proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
		proc.on('error', reject);
		proc.on('exit', (code) => {
			const line = out.split('\n').find((candidate) => candidate.startsWith('RESULT '));
			if (code !== 0 || line === undefined)
				reject(new Error(`history child exited ${code}: ${out}`));
			else resolve(JSON.parse(line.slice('RESULT '.length)) as T);
		});
	});
}

async function benchHistory(sandbox: Sandbox): Promise<Row[]> {
	const COUNT = 100_000;
	sandbox.reset();
	const now = Date.now();
	const startTime = now - 29 * DAY;
	const endTime = now - 60_000;
	const seeded = sandbox.seedRecords({ flowType: 32, count: COUNT, startTime, endTime, seed: 11 });
	const seededJsonBytes = Buffer.byteLength(JSON.stringify(seeded));
	const results: Array<ChildResult & { requests: number }> = [];
	for (let rep = 0; rep < HISTORY_REPS; rep++) {
		const before = sandbox.ledger.requests.length;
		const result = await runChild({
			BENCH_BASE_URL: sandbox.baseUrl,
			BENCH_START: String(startTime),
			BENCH_END: String(now),
		});
		// The child's warm-up run reads the newest 4 hours first; count only the measured run.
		const requests = sandbox.ledger.requests
			.slice(before)
			.filter((request) => request.path === HISTORY);
		const warmUpRequests = requests.findIndex(
			(request) => new URLSearchParams(request.query).get('startTime') === String(startTime),
		);
		const measured = requests.length - warmUpRequests;
		if (result.records !== COUNT || result.uniqueIds !== COUNT) {
			throw new Error(
				`Return All returned ${result.records} records (${result.uniqueIds} distinct), expected ${COUNT}`,
			);
		}
		results.push({ ...result, requests: measured });
		log(
			`  bench 3 rep ${rep + 1}/${HISTORY_REPS}: ${fmtMs(result.wallMs)}, ${measured} requests, peak heap +${fmtBytes(result.peakHeapGrowth)}`,
		);
	}
	const env = {
		BENCH_BASE_URL: sandbox.baseUrl,
		BENCH_START: String(startTime),
		BENCH_END: String(now),
	};
	// The same run with a 1 MiB young-generation semi-space (default 16 MiB): less garbage waits
	// for collection, so the sampled peak is closer to what the run really needs.
	const smallYoung = await runChild(env, ['--max-semi-space-size=1']);
	// The floor: a bare client holding the same records, parsed, then wrapped as n8n items.
	const floor = await runChild<{ records: number; parsed: number; wrapped: number }>(
		{ ...env, BENCH_API_KEY: DEMO_KEYS.master.apiKey, BENCH_SECRET: DEMO_KEYS.master.secret },
		[],
		'historyFloor.child.ts',
	);
	if (floor.records !== COUNT) throw new Error(`floor walk read ${floor.records} records`);
	const pick = (key: keyof (ChildResult & { requests: number })) =>
		median(results.map((result) => result[key]));
	const jsonBytes = pick('jsonBytes');
	const peakRatio = pick('peakHeapGrowth') / jsonBytes;
	const retainedRatio = pick('retainedHeapGrowth') / jsonBytes;
	const requests = Math.max(...results.map((result) => result.requests));
	const name = `3. History Return All (${COUNT.toLocaleString('en')} records)`;
	return [
		{
			benchmark: name,
			measure: 'requests made (worst run)',
			value: String(requests),
			target: '<= 201',
			verdict: verdict(requests <= 201),
		},
		{
			benchmark: name,
			measure: 'records returned / distinct ids',
			value: `${pick('records')} / ${pick('uniqueIds')}`,
			target: `${COUNT} / ${COUNT}`,
			verdict: verdict(pick('records') === COUNT && pick('uniqueIds') === COUNT),
		},
		{
			benchmark: name,
			measure: 'wall time, median',
			value: fmtMs(pick('wallMs')),
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'JSON size of the records',
			value: `${fmtBytes(jsonBytes)} (seeded: ${fmtBytes(seededJsonBytes)})`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'peak heap growth (sampled, incl. garbage), median',
			value: `${fmtBytes(pick('peakHeapGrowth'))} = ${peakRatio.toFixed(2)}x JSON`,
			target: '<= 2x JSON',
			verdict: verdict(peakRatio <= 2),
		},
		{
			benchmark: name,
			measure: 'same, node run with --max-semi-space-size=1',
			value: `${fmtBytes(smallYoung.peakHeapGrowth)} = ${(smallYoung.peakHeapGrowth / jsonBytes).toFixed(2)}x JSON (${fmtMs(smallYoung.wallMs)})`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'heap retained after GC (output held), median',
			value: `${fmtBytes(pick('retainedHeapGrowth'))} = ${retainedRatio.toFixed(2)}x JSON`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'floor: bare client holding the parsed records / + n8n item wrappers',
			value: `${fmtBytes(floor.parsed)} = ${(floor.parsed / jsonBytes).toFixed(2)}x / ${fmtBytes(floor.wrapped)} = ${(floor.wrapped / jsonBytes).toFixed(2)}x JSON`,
			target: '',
			verdict: 'info',
		},
		{
			benchmark: name,
			measure: 'peak RSS growth, median',
			value: fmtBytes(pick('peakRssGrowth')),
			target: '',
			verdict: 'info',
		},
	];
}

// ------------------------------------------------------------------ 4. trigger idle poll

async function benchTrigger(sandbox: Sandbox): Promise<Row[]> {
	const triggerFile = path.join(
		__dirname,
		'..',
		'nodes',
		'TradingService',
		'TradingServiceTrigger.node.ts',
	);
	const pollFile = path.join(__dirname, '..', 'tools', 'harness', 'poll.ts');
	if (!existsSync(triggerFile) || !existsSync(pollFile)) {
		return [
			{
				benchmark: '4. Trigger idle poll',
				measure: 'requests per poll, nothing new',
				value: 'trigger not written yet',
				target: '1',
				verdict: 'TODO',
			},
		];
	}
	const { benchTriggerIdlePoll } = await import('./trigger');
	return benchTriggerIdlePoll(sandbox);
}

// ------------------------------------------------------------------ main

// ------------------------------------------------------------------ 5. real n8n

/** Bench 5's details (its table by way, the chains' split, the CPU profile), printed after the table. */
const details: string[] = [];

async function benchReal(sandbox: Sandbox): Promise<Row[]> {
	const { benchRealN8n } = await import('./realN8n');
	const { profileMarkdown } = await import('./cpuProfile');
	const result = await benchRealN8n(sandbox);
	if (result.skipped === undefined) {
		details.push(
			`Bench 5 by way (${new Date().toISOString()}, load ${os
				.loadavg()
				.map((load) => load.toFixed(2))
				.join(' ')}):\n\n${result.markdown}`,
		);
	}
	for (const { key, variant, summary } of result.profiles) {
		details.push(
			`Bench 5 CPU profile of way ${key}${variant ? ` (${variant})` : ''} (${summary.profileFile}):\n\n${profileMarkdown(summary)}`,
		);
	}
	return result.rows;
}

// ------------------------------------------------------------------ limits (real n8n, documented rates)

/** The limits section runs its own sandbox at the default limits (this one has no weight budget). */
async function benchLimitsSection(): Promise<Row[]> {
	const { benchLimits } = await import('./limits');
	const result = await benchLimits();
	if (result.skipped === undefined) details.push(`Limits section:\n\n${result.markdown}`);
	return result.rows;
}

async function main(): Promise<void> {
	const sandbox = await startSandbox({ rateLimit: false, symbolRules: 'lenient' });
	const rows: Row[] = [];
	try {
		const benches: Array<[string, (sb: Sandbox) => Promise<Row[]>]> = [
			['1', benchOverhead],
			['2', benchBatch],
			['3', benchHistory],
			['4', benchTrigger],
			['5', benchReal],
			['6', benchBusinessKeys],
			['8', () => benchSettling()],
			['9', () => benchFutures()],
			['limits', benchLimitsSection],
		];
		for (const [id, bench] of benches) {
			if (!ONLY.includes(id)) continue;
			log(`bench ${id} ...`);
			rows.push(...(await bench(sandbox)));
		}
	} finally {
		await sandbox.stop();
	}
	const memory = Math.round(os.totalmem() / 2 ** 30);
	process.stdout.write(
		`\nTrading Service node benchmarks — ${new Date().toISOString()}\n` +
			`machine: ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), ${memory} GiB RAM, node ${process.version}, ${os.platform()} ${os.release()}\n` +
			`sandbox on loopback, rate limit off (bench 5: the sandbox's default limits); benches 1-2: median of ${REPS} reps after warm-up; bench 3: median of ${HISTORY_REPS} child processes\n\n`,
	);
	printTable(rows);
	for (const detail of details) process.stdout.write(`\n${detail}\n`);
	const missed = rows.filter((row) => row.verdict === 'NOT MET');
	process.stdout.write(
		missed.length === 0
			? '\nAll targets met.\n'
			: `\nTargets NOT met: ${missed.map((row) => `${row.benchmark.split(' ')[0]} ${row.measure} = ${row.value}`).join('; ')}\n`,
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
