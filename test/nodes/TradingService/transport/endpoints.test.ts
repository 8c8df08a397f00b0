import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Endpoint } from '../../../../nodes/TradingService/transport';
import { answerProblem } from '../../../../nodes/TradingService/transport/answer';
import { DECLARED_ENDPOINTS } from './support';

// The endpoints the rooms declare against the endpoint table of docs/api.md (§4), and what each
// endpoint takes for a usable answer (fixed vectors).

type Name = keyof typeof DECLARED_ENDPOINTS;
const NAMES = Object.keys(DECLARED_ENDPOINTS) as Name[];
/** The futures writes (docs/api.md "Futures (write side)"): order requests, each a write. */
const FUTURES_WRITES: Name[] = [
	'futures.newOrder',
	'futures.batchOrders',
	'futures.cancelOrder',
	'futures.cancelOrders',
	'futures.tradingStop',
	'futures.setLeverage',
];

/** The rows of docs/api.md's endpoint table whose first cell `row` matches: method, path, weight, whether it writes. */
function documentedEndpoints(row: RegExp): Array<{
	method: string;
	path: string;
	weight: number;
	writes: boolean;
}> {
	const text = readFileSync(join(__dirname, '../../../../docs/api.md'), 'utf8');
	const rows = text
		.split('\n')
		.filter((line) => row.test(line))
		.map((line) => line.split('|').map((cell) => cell.trim()));
	return rows.map((cells) => {
		const [method, path] = cells[3].replace(/`/g, '').split(' ');
		return { method, path, weight: Number(cells[4]), writes: cells[5] === 'yes' };
	});
}

const check = (name: Name, body: unknown) => {
	const endpoint: Endpoint = DECLARED_ENDPOINTS[name];
	return answerProblem(endpoint.answer, body);
};

describe('the endpoints the rooms declare', () => {
	it('has every endpoint of docs/api.md §4 and its futures rows, with its method, path, weight and whether it writes', () => {
		const spot = documentedEndpoints(/^\| 4\.\d+ \|/);
		expect(spot).toHaveLength(25);
		const futures = documentedEndpoints(/^\| \[F\]\(#futures-read-side\) \|/);
		expect(futures).toHaveLength(11);
		const futuresWrites = documentedEndpoints(/^\| \[FW\]\(#futures-write-side\) \|/);
		expect(futuresWrites).toHaveLength(6);
		const wallet = documentedEndpoints(/^\| \[W\]\(#wallet\) \|/);
		expect(wallet).toHaveLength(3);
		const documented = [...spot, ...futures, ...futuresWrites, ...wallet];
		const table = NAMES.map((name) => {
			const endpoint: { method: string; path: string; weight: number; writes?: true } =
				DECLARED_ENDPOINTS[name];
			return {
				method: endpoint.method,
				path: endpoint.path,
				weight: endpoint.weight,
				writes: endpoint.writes === true,
			};
		});
		expect(new Set(table.map(({ method, path }) => `${method} ${path}`)).size).toBe(table.length);
		expect([...table].sort(byRoute)).toEqual([...documented].sort(byRoute));
	});

	it('marks as writes exactly the requests that change the account; the order test is not one', () => {
		const writes = NAMES.filter((name) => 'writes' in DECLARED_ENDPOINTS[name]).sort();
		expect(writes).toEqual(
			[
				...FUTURES_WRITES,
				'transfers.assetTransfer',
				'orders.batchOrders',
				'orders.cancelOrder',
				'orders.cancelOrderByIds',
				'orders.newOrder',
				'orders.unifiedOrder',
				'orders.unifiedBatchOrders',
			].sort(),
		);
	});

	it('counts against the order rate exactly new order, batch orders, the cancels and the futures writes; only the transfer is spaced 1 s', () => {
		const declared = (name: Name): Endpoint => DECLARED_ENDPOINTS[name];
		// docs/api.md "Request rates": new order, batch orders and every cancel are order requests;
		// everything else (the order test, the transfer, every futures read) counts as a query
		const orderClass = NAMES.filter((name) => declared(name).rateClass !== undefined);
		expect(orderClass.map((name) => [name, declared(name).rateClass]).sort()).toEqual(
			[
				...FUTURES_WRITES,
				'orders.batchOrders',
				'orders.cancelOrder',
				'orders.cancelOrderByIds',
				'orders.newOrder',
				'orders.unifiedOrder',
				'orders.unifiedBatchOrders',
			]
				.sort()
				.map((name) => [name, 'order']),
		);
		// the UAE documentation: the transfer "no more than once per second"
		const spaced = NAMES.filter((name) => declared(name).minIntervalMs !== undefined);
		expect(spaced.map((name) => [name, declared(name).minIntervalMs])).toEqual([
			['transfers.assetTransfer', 1000],
		]);
		// every futures read is a signed GET of the query class
		const futures = NAMES.filter(
			(name) => name.startsWith('futures.') && !FUTURES_WRITES.includes(name),
		).sort();
		expect(futures).toEqual(
			[
				'futures.balance',
				'futures.commissionRate',
				'futures.fundingRate',
				'futures.historyFundingFees',
				'futures.historyFundingRate',
				'futures.historyOrders',
				'futures.leverage',
				'futures.openOrders',
				'futures.order',
				'futures.positions',
				'futures.userTrades',
			].sort(),
		);
		for (const name of futures) {
			const { method, rateClass, signed } = declared(name);
			expect([name, method, rateClass, signed]).toEqual([name, 'GET', undefined, undefined]);
		}
	});

	it('hands over whole only the answers that carry a code per entry: batch orders (spot and futures) and cancel by IDs', () => {
		const perEntry = NAMES.filter((name) => 'codesPerEntry' in DECLARED_ENDPOINTS[name]).sort();
		expect(perEntry).toEqual([
			'futures.batchOrders',
			'orders.batchOrders',
			'orders.cancelOrderByIds',
			'orders.unifiedBatchOrders',
		]);
	});

	it('takes the API key alone (signed: false) exactly for market data and exchange information', () => {
		const keyOnly = NAMES.filter((name) => 'signed' in DECLARED_ENDPOINTS[name]);
		expect(keyOnly.map((name) => DECLARED_ENDPOINTS[name].path).sort()).toEqual(
			[
				'/api/v1/exchangeInfo',
				'/quote/v1/ticker/price',
				'/quote/v1/ticker/24hr',
				'/quote/v1/depth',
				'/quote/v1/trades',
				'/quote/v1/klines',
			].sort(),
		);
	});

	it('every endpoint but the server time checks the shape of its answer', () => {
		for (const name of NAMES) {
			if (name === 'transport.serverTime') expect('answer' in DECLARED_ENDPOINTS[name]).toBe(false);
			else expect(typeof check(name, undefined)).toBe('string');
		}
	});
});

describe('usable answers', () => {
	it('history: a list of records with a string id and a created of digits', () => {
		expect(check('account.history', [])).toBeUndefined();
		expect(
			check('account.history', [
				{ id: '1600000000000000033', created: '1700000000000' },
				{ id: '1600000000000000034', created: 1700000000000 },
			]),
		).toBeUndefined();
		const problem =
			'The service answered the history request with something other than a list of records';
		expect(check('account.history', { records: [] })).toBe(problem);
		expect(check('account.history', [{ id: 1600000000000000000, created: '1700000000000' }])).toBe(
			problem,
		);
		expect(check('account.history', [{ id: '1', created: '2026-01-01T00:00:00Z' }])).toBe(problem);
		expect(check('account.history', [null])).toBe(problem);
	});

	it('an order (create, lookup, cancel): an object with an orderId, as a string or a number', () => {
		for (const name of [
			'orders.newOrder',
			'orders.unifiedOrder',
			'orders.queryOrder',
			'orders.cancelOrder',
		] as const) {
			expect(check(name, { orderId: '1950000000000000017' })).toBeUndefined();
			expect(check(name, { orderId: 1950000017 })).toBeUndefined();
			for (const body of [
				null,
				'',
				true,
				'<html></html>',
				{},
				[{ orderId: '1' }],
				{ orderId: null },
			])
				expect(check(name, body)).toMatch(
					/^The service answered .* with something other than an order$/,
				);
		}
	});

	it('a transfer: an object whose success is a boolean (false is a refusal, read later)', () => {
		expect(check('transfers.assetTransfer', { success: true, orderId: '1' })).toBeUndefined();
		expect(check('transfers.assetTransfer', { success: false })).toBeUndefined();
		for (const body of [{ success: 'true' }, {}, null, [], 'ok'])
			expect(check('transfers.assetTransfer', body)).toBe(
				'The service answered the transfer with something other than a transfer result',
			);
	});

	it('batch orders: a result list of any length; cancel by IDs: a result list or null', () => {
		expect(check('orders.batchOrders', { code: 0, result: [] })).toBeUndefined();
		expect(check('orders.unifiedBatchOrders', { code: 0, result: [] })).toBeUndefined();
		expect(check('orders.unifiedBatchOrders', { code: 0 })).toBe(
			'The service answered the batch order request without a result list',
		);
		expect(check('orders.batchOrders', { code: '-1000', result: [{ code: 0 }] })).toBeUndefined();
		expect(check('orders.batchOrders', { code: 0 })).toBe(
			'The service answered the batch order request without a result list',
		);
		expect(check('orders.batchOrders', null)).toBe(
			'The service answered the batch order request without a result list',
		);
		expect(check('orders.cancelOrderByIds', { code: 0, result: null })).toBeUndefined();
		expect(check('orders.cancelOrderByIds', { code: 0, result: [] })).toBeUndefined();
		expect(check('orders.cancelOrderByIds', { code: 0 })).toBe(
			'The service answered the cancel by IDs without a result list',
		);
	});

	it('open and past orders: a list of orders, possibly empty', () => {
		for (const name of ['orders.openOrders', 'orders.tradeOrders'] as const) {
			expect(check(name, [])).toBeUndefined();
			expect(check(name, [{ orderId: '1' }, { orderId: 2 }])).toBeUndefined();
			expect(check(name, [{ orderId: '1' }, {}])).toMatch(/something other than a list of orders$/);
			expect(check(name, { orders: [] })).toMatch(/something other than a list of orders$/);
		}
	});

	it('balances: an object with a list of balance objects; the order test: an object', () => {
		expect(check('account.balances', { balances: [{ asset: 'USDT', free: '1' }] })).toBeUndefined();
		expect(check('account.balances', { balances: ['USDT'] })).toBe(
			'The service answered the balances request without a list of balances',
		);
		expect(check('account.balances', [])).toBe(
			'The service answered the balances request without a list of balances',
		);
		expect(check('orders.orderTest', {})).toBeUndefined();
		expect(check('orders.orderTest', 'ok')).toMatch(/something other than an object$/);
	});
});

function byRoute(a: { method: string; path: string }, b: { method: string; path: string }): number {
	return `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`);
}
