/**
 * Bench 9: futures writes at the exchange's documented limits (issue 51). The sandbox keeps its
 * default limits (per API key 20 order and 5 query requests a second, over that 429 and a
 * suspension) and answers every request BENCH_LATENCY_MS (default 20) late; the node runs with the
 * credential's default rates (the documented ones), through the test harness (n8n-core's real
 * executor), node version 2.
 *
 * - Create Many Orders of 200 futures orders (LIMIT BUY, one contract, 10 batches of 20):
 *   target 0 × 429 and ≤ 1.5 s.
 * - Close Position, 200 items (each a reduce-only MARKET SELL of 0.001 BTC of one position):
 *   200 order requests, target ≤ 1.2 × the limits' floor.
 * - Cancel Many Orders of 200 open orders by their IDs (cancelBy ids): 200 cancels, target
 *   ≤ 1.2 × the limits' floor.
 * - For reference: Cancel Many Orders of every contract (200 open orders over 3 contracts, limit
 *   and stop, both sides): a few requests of up to 200 each, paged.
 *
 * The limits' floor of n order and m query requests: the least time any client obeying the
 * documented rates needs to send them, requests in flight at once allowed:
 * max(ceil(n / 20) − 1, ceil(m / 5) − 1, 0) seconds + one latency. The floor counts the writes
 * alone (reads the node needs on top are its own cost). Each figure is the median of
 * BENCH_FUTURES_REPS (default 3) runs, 1.1 s of quiet before each (the key's window empty);
 * requests and 429s from the sandbox's ledger.
 */
import './preload';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../sandbox';
import { TestClient } from '../sandbox/testClient';
import { runTradingService } from '../tools/harness/node';
import { fmtMs, median, printTable, type Row } from './stats';

const REPS = Number(process.env.BENCH_FUTURES_REPS ?? 3);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const ORDER_RATE = 20;
const QUERY_RATE = 5;
const NAME = '9 futures at the documented limits';
const BTC = 'BTCUSDT-PERPETUAL';
/** The contracts that trade (the sandbox's XRPUSDT-PERPETUAL is halted). */
const CONTRACTS = [BTC, 'ETHUSDT-PERPETUAL', 'SOLUSDT-PERPETUAL'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The limits' floor of `orders` order-class and `queries` query-class requests (see above). */
export function limitsFloorMs(orders: number, queries: number, latencyMs = LATENCY_MS): number {
	const windows = Math.max(
		Math.ceil(orders / ORDER_RATE) - 1,
		Math.ceil(queries / QUERY_RATE) - 1,
		0,
	);
	return windows * 1000 + latencyMs;
}

interface Figures {
	ms: number;
	orderRequests: number;
	queryRequests: number;
	rateLimited: number;
	intoSuspension: number;
	placed: number;
	items: number;
	error?: string;
}

/** 1.1 s of quiet, a reset, the latency; `seed`; then the node's run, measured. */
async function measure(
	sb: Sandbox,
	seed: () => Promise<void> | void,
	parameters: IDataObject,
	inputItems: () => IDataObject[] = () => [{}],
): Promise<Figures> {
	await sleep(1100);
	sb.reset();
	// Margin for every order of the run (the futures wallet is the contract account's).
	sb.setBalance(DEMO_ACCOUNTS.mainContract, 'USDT', '10000000');
	await seed();
	// The seeding's own requests (if any) out of the key's window before the run.
	await sleep(1100);
	sb.setFaults({ latencyMs: LATENCY_MS });
	const since = sb.ledger.requests.length;
	const limitsBefore = sb.rateLimitStats();
	const started = Date.now();
	const run = await runTradingService(sb, {
		parameters,
		inputItems: inputItems().map((json) => ({ json })),
		node: { typeVersion: 2 },
		continueOnFail: true,
	});
	const ms = Date.now() - started;
	const requests = sb.ledger.requests.slice(since);
	const limits = sb.rateLimitStats();
	return {
		ms,
		orderRequests: requests.filter((r) => r.rateClass === 'order').length,
		queryRequests: requests.filter((r) => r.rateClass === 'query').length,
		rateLimited: limits.rateLimited - limitsBefore.rateLimited,
		intoSuspension: limits.intoSuspension - limitsBefore.intoSuspension,
		placed: run.items.filter((item) => item.json.outcome === 'placed').length,
		items: run.items.length,
		error: run.error?.message,
	};
}

/** 200 open orders over 3 contracts: limit BUYs (the sandbox's control) and 20 stop BUYs (the API). */
async function seedOpenOrders(sb: Sandbox, stops: boolean): Promise<string[]> {
	const ids: string[] = [];
	const limits = stops ? 180 : 200;
	for (let index = 0; index < limits; index++) {
		const symbol = stops ? CONTRACTS[index % CONTRACTS.length] : BTC;
		const price = {
			[BTC]: '1000',
			'ETHUSDT-PERPETUAL': '100',
			'SOLUSDT-PERPETUAL': '10',
		}[symbol]!;
		const quantity = {
			[BTC]: '0.001',
			'ETHUSDT-PERPETUAL': '0.01',
			'SOLUSDT-PERPETUAL': '0.1',
		}[symbol]!;
		ids.push(sb.futures.placeOpenOrder({ symbol, side: 'BUY', quantity, price }).orderId);
	}
	if (stops) {
		// Stop BUYs far above the mark (not triggered), placed through the API at the order rate.
		const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => sb.now());
		for (let index = 0; index < 20; index++) {
			if (index === 10) await sleep(1100);
			const res = await client.call({
				method: 'POST',
				path: '/api/v2/futures/order',
				query: { symbol: BTC, side: 'BUY', type: 'STOP', baseQty: '0.001', stopPrice: '90000' },
			});
			if (res.status !== 200)
				throw new Error(`seeding a stop order: HTTP ${res.status} ${res.text}`);
			ids.push(String((res.json as { orderId: string }).orderId));
		}
	}
	return ids;
}

function row(
	measure: string,
	figures: Figures[],
	target: { maxMs?: number; floorMs?: number },
): Row {
	const ms = median(figures.map((f) => f.ms));
	const [first] = figures;
	const limited = Math.max(...figures.map((f) => f.rateLimited + f.intoSuspension));
	const counts = `${first.orderRequests} order + ${first.queryRequests} query requests, ${limited} × 429, ${first.placed}/${first.items} placed${first.error ? `, error: ${first.error}` : ''}`;
	if (target.maxMs !== undefined)
		return {
			benchmark: NAME,
			measure,
			value: `${fmtMs(ms)}; ${counts}`,
			target: `0 × 429, ≤ ${fmtMs(target.maxMs)}`,
			verdict: limited === 0 && ms <= target.maxMs ? 'met' : 'NOT MET',
		};
	const floor = target.floorMs!;
	const ratio = ms / floor;
	return {
		benchmark: NAME,
		measure,
		value: `${fmtMs(ms)} = ${ratio.toFixed(2)} × floor ${fmtMs(floor)}; ${counts}`,
		target: measure.includes('reference') ? 'info' : '0 × 429, ≤ 1.2 × floor',
		verdict: measure.includes('reference')
			? 'info'
			: limited === 0 && ratio <= 1.2
				? 'met'
				: 'NOT MET',
	};
}

export async function benchFutures(): Promise<Row[]> {
	// The documented limits (rate limit on, the default), contract rules as the exchange's.
	const sb = await startSandbox({ symbolRules: 'lenient', market: { moving: false } });
	const repeat = async (work: () => Promise<Figures>) => {
		const out: Figures[] = [];
		for (let rep = 0; rep < REPS; rep++) {
			out.push(await work());
			process.stderr.write(`bench 9: ${JSON.stringify(out[out.length - 1])}\n`);
		}
		return out;
	};
	try {
		const rows: Row[] = [];
		const createMany = await repeat(() =>
			measure(
				sb,
				() => undefined,
				{ resource: 'futures', operation: 'createManyOrders', inputMode: 'items' },
				() =>
					Array.from({ length: 200 }, (_, index) => ({
						symbol: BTC,
						side: 'BUY',
						type: 'LIMIT',
						price: String(30000 + index),
						baseQty: '0.001',
					})),
			),
		);
		rows.push(
			row('Create Many Orders, 200 LIMIT orders (10 batches)', createMany, { maxMs: 1500 }),
		);

		const close = await repeat(() =>
			measure(
				sb,
				() => {
					sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.5' });
				},
				{
					resource: 'futures',
					operation: 'closePosition',
					symbol: { __rl: true, mode: 'id', value: BTC },
					closeAmount: 'base',
					quantity: '0.001',
				},
				() => Array.from({ length: 200 }, () => ({})),
			),
		);
		rows.push(
			row('Close Position, 200 items of 0.001 BTC', close, { floorMs: limitsFloorMs(200, 0) }),
		);

		let ids: string[] = [];
		const byIds = await repeat(() =>
			measure(
				sb,
				async () => {
					ids = await seedOpenOrders(sb, false);
				},
				{
					resource: 'futures',
					operation: 'cancelManyOrders',
					cancelBy: 'ids',
					orderIds: '={{ $json.ids }}',
				},
				() => [{ ids: ids.join(',') }],
			),
		);
		rows.push(
			row('Cancel Many Orders by ID, 200 open orders', byIds, { floorMs: limitsFloorMs(200, 0) }),
		);

		const all = await repeat(() =>
			measure(
				sb,
				async () => {
					await seedOpenOrders(sb, true);
				},
				{ resource: 'futures', operation: 'cancelManyOrders', cancelBy: 'all' },
			),
		);
		// Every contract, both sides, both types: one request per side and type cancels up to 200,
		// and one more confirms the page is the last (lastOrderId "0"): 2 + 2 + 1 + 1.
		rows.push(
			row('Cancel Many Orders, every contract, 200 open orders (reference)', all, {
				floorMs: limitsFloorMs(6, 0),
			}),
		);
		return rows;
	} finally {
		await sb.stop();
	}
}

// On its own: npx ts-node --transpile-only bench/futures.ts
if (require.main === module) {
	benchFutures().then(
		(rows) => printTable(rows),
		(error: unknown) => {
			process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
			process.exitCode = 1;
		},
	);
}
