/**
 * Bench 8: settling many writes whose outcome is unknown (issue 49). 200 writes whose answers are
 * all lost after the exchange applied them, at the exchange's documented request rates (5 query
 * requests a second per key): Create Many of 200 orders (10 batches, half resting, half filled at
 * once) and Cancel Many of 200 order IDs (2 requests of 100). The node settles them from pages of
 * open and past orders (writes/lookups.ts SessionLookups, orders/listLookups.ts);
 * for comparison, the same Create Many with the lists failing, so that every order is looked up
 * on its own (the node before issue 49: 200 queries, 40 s at 5 a second; skip with
 * BENCH_SETTLING_SINGLES=0). Every request with BENCH_LATENCY_MS (default 20) of server latency.
 * Settling time: from the last write request's arrival at the sandbox to the end of the run.
 * Requests from the sandbox's ledger. Median of BENCH_SETTLING_REPS (default 3).
 */
import './preload';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import { TestClient } from '../sandbox/testClient';
import { runTradingService } from '../tools/harness/node';
import { fmtMs, median, printTable, type Row } from './stats';

const REPS = Number(process.env.BENCH_SETTLING_REPS ?? 3);
/** Server latency of every request (a real exchange is a network hop away). */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const SINGLES = process.env.BENCH_SETTLING_SINGLES !== '0';
const TARGET_MS = 3000;

const BATCH = '/api/v1/spot/batchOrders';
const BY_IDS = '/api/v1/spot/cancelOrderByIds';
const LOOKUP_PATHS = ['/api/v1/spot/order', '/api/v1/spot/openOrders', '/api/v1/spot/tradeOrders'];

interface Figures {
	settleMs: number;
	runMs: number;
	lookups: number;
	placed: number;
}

function orders(): IDataObject[] {
	return Array.from({ length: 200 }, (_, index) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: index % 2 === 0 ? 'LIMIT' : 'MARKET',
		...(index % 2 === 0 ? { price: '100' } : {}),
		quantity: `0.${String(index + 1).padStart(4, '0')}1`,
	}));
}

/** Runs the node and measures: the settling from the last write request, and the lookups. */
async function measure(
	sandbox: Sandbox,
	writePath: string,
	run: () => Promise<{ items: Array<{ json: IDataObject }>; error?: unknown }>,
): Promise<Figures> {
	const since = sandbox.ledger.requests.length;
	const startedAt = Date.now();
	const result = await run();
	const endedAt = Date.now();
	if (result.error !== undefined) throw result.error as Error;
	const requests = sandbox.ledger.requests.slice(since);
	const lastWrite = Math.max(
		...requests.filter((request) => request.path === writePath).map((request) => request.at),
	);
	return {
		settleMs: endedAt - lastWrite,
		runMs: endedAt - startedAt,
		lookups: requests.filter(
			(request) => request.method === 'GET' && LOOKUP_PATHS.includes(request.path),
		).length,
		placed: result.items.filter((item) => item.json.outcome === 'placed').length,
	};
}

async function createMany(sandbox: Sandbox, listsFail: boolean): Promise<Figures> {
	sandbox.reset();
	sandbox.setFaults({
		latencyMs: LATENCY_MS,
		rules: [
			{ kind: 'dropAfter', times: 10, path: BATCH },
			...(listsFail
				? ['/api/v1/spot/openOrders', '/api/v1/spot/tradeOrders'].map((path) => ({
						kind: 'redirectSameHost' as const,
						times: 1000,
						path,
					}))
				: []),
		],
	});
	return measure(sandbox, BATCH, () =>
		runTradingService(sandbox, {
			parameters: { resource: 'order', operation: 'createMany', inputMode: 'autoMap' },
			inputItems: orders().map((json) => ({ json })),
			node: { typeVersion: 2 },
		}),
	);
}

async function cancelMany(sandbox: Sandbox): Promise<Figures> {
	sandbox.reset();
	const client = new TestClient(sandbox.baseUrl, DEMO_KEYS.master, () => sandbox.now());
	for (let start = 0; start < 200; start += 20)
		await client.batch(
			Array.from({ length: 20 }, () => ({
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				timeInForce: 'GTC',
				price: '1',
				quantity: '0.0001',
			})),
		);
	const ids = sandbox.ledger.orders.map((order) => order.orderId);
	// A second's quiet: the key's query window is the cancels' and lookups' alone.
	await new Promise((resolve) => setTimeout(resolve, 1100));
	sandbox.setFaults({
		latencyMs: LATENCY_MS,
		rules: [{ kind: 'dropAfter', times: 2, path: BY_IDS }],
	});
	return measure(sandbox, BY_IDS, () =>
		runTradingService(sandbox, {
			parameters: {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: ids.join(','),
			},
		}),
	);
}

function row(measure: string, figures: Figures[], target: boolean): Row {
	const settle = median(figures.map((one) => one.settleMs));
	const run = median(figures.map((one) => one.runMs));
	const [first] = figures;
	return {
		benchmark: '8 settling unknown writes',
		measure,
		value: `settled in ${fmtMs(settle)} (run ${fmtMs(run)}), ${first.lookups} lookup requests, ${first.placed}/200 placed`,
		target: target ? `≤ ${fmtMs(TARGET_MS)}` : 'info',
		verdict: target ? (settle <= TARGET_MS ? 'met' : 'NOT MET') : 'info',
	};
}

export async function benchSettling(): Promise<Row[]> {
	// The exchange's documented rates (20 order, 5 query requests a second), told to the credential.
	const sandbox = await startSandbox({ symbolRules: 'lenient' });
	try {
		const rows: Row[] = [];
		const repeat = async (work: () => Promise<Figures>) => {
			const figures: Figures[] = [];
			for (let rep = 0; rep < REPS; rep++) {
				figures.push(await work());
				// The key's window empty again before the next run.
				await new Promise((resolve) => setTimeout(resolve, 1100));
			}
			return figures;
		};
		rows.push(
			row(
				'Create Many, 200 orders, all 10 batch answers lost (lists)',
				await repeat(() => createMany(sandbox, false)),
				true,
			),
		);
		rows.push(
			row(
				'Cancel Many, 200 order IDs, both answers lost (lists)',
				await repeat(() => cancelMany(sandbox)),
				true,
			),
		);
		if (SINGLES)
			rows.push(
				row(
					'Create Many, 200 orders, answers lost, lists failing (one lookup each, as before)',
					[await createMany(sandbox, true)],
					false,
				),
			);
		return rows;
	} finally {
		await sandbox.stop();
	}
}

// On its own: npx ts-node --transpile-only bench/settling.ts
if (require.main === module) {
	benchSettling().then(
		(rows) => printTable(rows),
		(error: unknown) => {
			process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
			process.exitCode = 1;
		},
	);
}
