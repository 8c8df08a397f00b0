import { DEMO_KEYS } from '../../../../sandbox';
import { generatedClientOrderId } from '../../../../tools/harness/node';
import { reportedOutcome, runCounting } from '../../../support/runs';
import { findContract } from '../../../../sandbox/futures/contracts';
import { useSandbox } from '../../../support/sandbox';
import { ORDER_PATH, POSITIONS_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, ETH, runFutures } from './support';

const sandbox = useSandbox();
const MARK = '60000';

function openLong(quantity = '0.01'): void {
	sandbox().futures.setMarkPrice(BTC, MARK);
	sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity, price: MARK });
}

const positionSize = () => sandbox().futures.positions()[0]?.baseQty ?? '0';
const close = (overrides: Record<string, unknown> = {}) => ({ symbol: BTC, ...overrides });

describe('Futures > Close Position', () => {
	it('closes the whole LONG with a reduce-only MARKET SELL of its size', async () => {
		openLong();
		const run = await runFutures(sandbox(), 'closePosition', close());
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			side: 'SELL',
			orderType: 'market',
			closed: '0.01',
			positionBefore: '0.01',
		});
		expect(run.items[0].json.clientOrderId).toMatch(generatedClientOrderId(0));
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect(
			Object.fromEntries(
				['symbol', 'side', 'type', 'baseQty', 'reduceOnly'].map((key) => [key, query.get(key)]),
			),
		).toEqual({
			symbol: BTC,
			side: 'SELL',
			type: 'MARKET',
			baseQty: '0.01',
			reduceOnly: 'true',
		});
		expect(sandbox().futures.positions()).toEqual([]);
	});

	it('closes a part given in the base coin', async () => {
		openLong();
		const run = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'base', quantity: '0.004' }),
		);
		expect(run.error).toBeUndefined();
		expect(positionSize()).toBe('0.006');
	});

	it('closes a percentage, rounded down to the step size', async () => {
		openLong();
		const run = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'percent', percent: 33 }),
		);
		expect(run.error).toBeUndefined();
		expect(queries(run.requests, ORDER_PATH, 'POST')[0].get('baseQty')).toBe('0.003');
		expect(positionSize()).toBe('0.007');
	});

	it('without a position: an item saying there is nothing to close, nothing sent', async () => {
		const run = await runFutures(sandbox(), 'closePosition', close());
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'rejected',
			nothingToClose: true,
			symbol: BTC,
			closed: '0',
		});
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	});
});

describe('Futures > Close Position: refused before sending, naming the field', () => {
	it.each([
		[
			'a percentage that rounds to 0',
			'0.001',
			close({ closeAmount: 'percent', percent: 50 }),
			/^Percent: 50% of the position \(0\.001\) rounds down to 0/,
		],
		[
			'a quantity above the position',
			'0.01',
			close({ closeAmount: 'base', quantity: '0.02' }),
			/^Quantity: 0\.02 is more than the position holds, 0\.01/,
		],
		[
			'a quantity off the step',
			'0.01',
			close({ closeAmount: 'base', quantity: '0.0045' }),
			/^Quantity: 0\.0045 is not a multiple of the step size/,
		],
		[
			'a position worth more than Max Order Notional',
			'0.01',
			close({ guardrails: { maxOrderNotional: '100' } }),
			/^Quantity: the order is worth 600 .*above Max Order Notional \(100\)/,
		],
		[
			'a position above Max Order Quantity',
			'0.01',
			close({ guardrails: { maxOrderQuantity: '0.005' } }),
			/^Quantity: 0\.01 is above Max Order Quantity/,
		],
	])('%s', async (_what, size, parameters, message) => {
		openLong(size);
		const run = await runFutures(sandbox(), 'closePosition', parameters);
		expect(run.error?.message).toMatch(message);
		expect(reportedOutcome(run)).toBe('rejected');
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(positionSize()).toBe(size);
	});

	it('a percentage below the contract’s minimum market order quantity, with the smallest percentage that works', async () => {
		// The sandbox's contracts have marketOrderMinQty = stepSize: BTC's is raised for this test.
		const btc = findContract(BTC)!;
		const kept = btc.marketOrderMinQty;
		btc.marketOrderMinQty = '0.003';
		try {
			openLong('0.01');
			const run = await runFutures(
				sandbox(),
				'closePosition',
				close({ closeAmount: 'percent', percent: 20 }),
			);
			expect(run.error?.message).toBe(
				'Percent: 20% of the position (0.01) is 0.002, below the contract’s minimum market order quantity 0.003',
			);
			expect(run.error?.description).toContain('Give at least 30 (percent)');
			expect(reportedOutcome(run)).toBe('rejected');
			expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
			expect(positionSize()).toBe('0.01');
		} finally {
			btc.marketOrderMinQty = kept;
		}
	});

	it.each([
		[
			'a contract outside Allowed Contracts',
			close({ guardrails: { allowedContracts: ETH } }),
			/^Symbol: BTCUSDT-PERPETUAL is not in Allowed Contracts/,
		],
		[
			'a percentage above 100',
			close({ closeAmount: 'percent', percent: 150 }),
			/^Percent: 150 is above 100/,
		],
		['a spot pair', close({ symbol: 'BTCUSDT' }), /^Symbol: "BTCUSDT" is not a futures contract/],
	])('%s: no request at all', async (_what, parameters, message) => {
		openLong();
		const before = sandbox().ledger.requests.length;
		const run = await runFutures(sandbox(), 'closePosition', parameters);
		expect(run.error?.message).toMatch(message);
		expect(sandbox().ledger.requests.length).toBe(before);
	});
});

describe('Futures > Close Position: a key without a futures account', () => {
	it('a sub account’s key is refused naming the credential, not told "nothing to close", while the master’s position stays', async () => {
		openLong();
		const run = await runFutures(sandbox(), 'closePosition', close(), {
			key: DEMO_KEYS.sub,
			continueOnFail: true,
		});
		expect(run.items[0].json).toMatchObject({
			error: 'This API key has no futures account of its own',
			outcome: 'rejected',
		});
		expect(run.items[0].json.nothingToClose).toBeUndefined();
		expect(run.requests.map((request) => request.path)).toEqual(['/api/v1/account/type']);
		expect(positionSize()).toBe('0.01');
	});
});

describe('Futures > Close Position: never closing twice', () => {
	it('its Client Order ID makes a later execution find the close instead of closing again', async () => {
		openLong();
		const first = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'base', quantity: '0.004', options: { clientOrderId: 'ks-1' } }),
		);
		expect(first.items[0].json).toMatchObject({ outcome: 'placed', clientOrderId: 'ks-1' });
		const again = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'base', quantity: '0.004', options: { clientOrderId: 'ks-1' } }),
		);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: 'ks-1',
		});
		expect(queries(again.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(positionSize()).toBe('0.006');
	});

	it('the whole position closed, then the same Client Order ID again: the close is found, not "nothing to close"', async () => {
		openLong();
		await runFutures(sandbox(), 'closePosition', close({ options: { clientOrderId: 'ks-2' } }));
		const again = await runFutures(
			sandbox(),
			'closePosition',
			close({ options: { clientOrderId: 'ks-2' } }),
		);
		expect(again.items[0].json).toMatchObject({
			outcome: 'placed',
			alreadyPlaced: true,
			clientOrderId: 'ks-2',
		});
	});

	it('a lost answer: the close is looked up by its client order ID, never sent again', async () => {
		openLong();
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: ORDER_PATH, method: 'POST' }],
		});
		const run = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'percent', percent: 50 }),
		);
		expect(reportedOutcome(run)).toBe('placed');
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(1);
		expect(positionSize()).toBe('0.005');
		expect(bookOrders(sandbox()).filter((one) => one.side === 'SELL')).toHaveLength(1);
		expect(queries(run.requests, POSITIONS_PATH, 'GET')).toHaveLength(1);
	});
});

describe('Futures > Close Position: a retry of the execution', () => {
	it('answers the close from the ledger: the smaller position is not read and closed again', async () => {
		openLong();
		const parameters = {
			resource: 'futures',
			operation: 'closePosition',
			...close({ closeAmount: 'percent', percent: 50 }),
		};
		const first = await runCounting(sandbox(), { parameters, node: { typeVersion: 2 } });
		expect(first.items[0].json.outcome).toBe('placed');
		const retry = await runCounting(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			retryOf: first,
			lostRunOf: first,
			mode: 'retry',
		});
		expect(retry.items[0].json).toMatchObject({
			outcome: 'placed',
			replayed: true,
			clientOrderId: first.items[0].json.clientOrderId,
		});
		expect(retry.requests).toEqual([]);
		expect(positionSize()).toBe('0.005');
	});

	it('a changed request (another percentage) in a retry is sized from the position and checked, not sent without a size', async () => {
		openLong();
		const parameters = {
			resource: 'futures',
			operation: 'closePosition',
			...close({ closeAmount: 'percent', percent: 50 }),
		};
		const first = await runCounting(sandbox(), { parameters, node: { typeVersion: 2 } });
		expect(first.items[0].json.outcome).toBe('placed');
		const retry = await runCounting(sandbox(), {
			parameters: { ...parameters, percent: 40 },
			node: { typeVersion: 2 },
			retryOf: first,
			lostRunOf: first,
			mode: 'retry',
		});
		expect(retry.error).toBeUndefined();
		expect(retry.items[0].json).toMatchObject({ outcome: 'placed', positionBefore: '0.005' });
		const [post] = queries(retry.requests, ORDER_PATH, 'POST');
		expect(post.get('baseQty')).toBe('0.002');
		expect(positionSize()).toBe('0.003');
		const refused = await runCounting(sandbox(), {
			parameters: { ...parameters, percent: 100, guardrails: { maxOrderQuantity: '0.002' } },
			node: { typeVersion: 2 },
			retryOf: retry,
			lostRunOf: retry,
			mode: 'retry',
		});
		expect(refused.error?.message).toMatch(
			/^Quantity: 0\.003 is above Max Order Quantity \(0\.002\)/,
		);
		expect(queries(refused.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	}, 30_000);

	it('after a crash lost the ledger: the close is found by its regenerated ID, not sent again', async () => {
		openLong();
		const parameters = {
			resource: 'futures',
			operation: 'closePosition',
			...close({ closeAmount: 'percent', percent: 50 }),
		};
		const lost = await runCounting(sandbox(), { parameters, node: { typeVersion: 2 } });
		const retry = await runCounting(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			lostRunOf: lost,
			mode: 'retry',
		});
		expect(retry.error).toBeUndefined();
		expect(retry.items[0].json).toMatchObject({ outcome: 'placed', alreadyPlaced: true });
		expect(queries(retry.requests, ORDER_PATH, 'POST')).toHaveLength(0);
		expect(positionSize()).toBe('0.005');
	}, 30_000);
});

describe('Futures > Close Position: many items, one read of the positions', () => {
	/** Items closing by their own fields (`={{ $json.… }}`), in parallel (the default lanes). */
	const byItem = {
		symbol: '={{ $json.symbol }}',
		closeAmount: '={{ $json.closeAmount }}',
		quantity: '={{ $json.quantity }}',
		percent: '={{ $json.percent }}',
	};
	const item = (json: Record<string, unknown>) => ({ json: { symbol: BTC, ...json } });
	const positionReads = (run: { requests: Parameters<typeof queries>[0] }) =>
		queries(run.requests, POSITIONS_PATH, 'GET').map((query) => query.get('symbol'));

	it('3 items closing parts of one position: one read, each sized from what the ones before left, the third closes exactly the rest', async () => {
		openLong('0.01');
		const run = await runFutures(sandbox(), 'closePosition', byItem, {
			inputItems: [
				item({ closeAmount: 'base', quantity: '0.004' }),
				item({ closeAmount: 'percent', percent: 50 }),
				item({ closeAmount: 'all' }),
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map(({ json }) => [json.outcome, json.positionBefore, json.closed])).toEqual([
			['placed', '0.01', '0.004'],
			['placed', '0.006', '0.003'],
			['placed', '0.003', '0.003'],
		]);
		expect(queries(run.requests, ORDER_PATH, 'POST').map((query) => query.get('baseQty'))).toEqual([
			'0.004',
			'0.003',
			'0.003',
		]);
		expect(positionReads(run)).toEqual([null]);
		expect(sandbox().futures.positions()).toEqual([]);
	});

	it('2 contracts in one run: one read of every position, both closed', async () => {
		openLong('0.01');
		sandbox().futures.setMarkPrice(ETH, '3000');
		sandbox().futures.fill({ symbol: ETH, side: 'BUY', quantity: '0.5', price: '3000' });
		const run = await runFutures(sandbox(), 'closePosition', byItem, {
			inputItems: [item({ closeAmount: 'all' }), item({ symbol: ETH, closeAmount: 'all' })],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map(({ json }) => [json.symbol, json.outcome, json.closed])).toEqual([
			[BTC, 'placed', '0.01'],
			[ETH, 'placed', '0.5'],
		]);
		expect(positionReads(run)).toEqual([null]);
		expect(sandbox().futures.positions()).toEqual([]);
	});

	it('a second item asking more than the first left is refused, naming Quantity, before sending', async () => {
		openLong('0.01');
		const run = await runFutures(sandbox(), 'closePosition', byItem, {
			inputItems: [
				item({ closeAmount: 'base', quantity: '0.008' }),
				item({ closeAmount: 'base', quantity: '0.004' }),
			],
			continueOnFail: true,
		});
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', closed: '0.008' });
		expect(run.items[1].json).toMatchObject({
			outcome: 'rejected',
			error: 'Quantity: 0.004 is more than the position holds, 0.002',
		});
		expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(1);
		expect(positionReads(run)).toEqual([null]);
		expect(positionSize()).toBe('0.002');
	});

	it('after an item whose close was not sent by this run (found under its Client Order ID), the next one reads the contract again instead of guessing', async () => {
		openLong('0.01');
		const first = await runFutures(
			sandbox(),
			'closePosition',
			close({ closeAmount: 'base', quantity: '0.004', options: { clientOrderId: 'ks-a' } }),
		);
		expect(first.items[0].json.outcome).toBe('placed');
		const run = await runFutures(
			sandbox(),
			'closePosition',
			{ ...byItem, options: { clientOrderId: '={{ $json.id }}' } },
			{
				inputItems: [
					item({ closeAmount: 'base', quantity: '0.004', id: 'ks-a' }),
					item({ closeAmount: 'all', id: 'ks-b' }),
				],
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items.map(({ json }) => [json.outcome, json.alreadyPlaced, json.closed])).toEqual([
			['placed', true, '0.004'],
			['placed', undefined, '0.006'],
		]);
		expect(positionReads(run)).toEqual([null, BTC]);
		expect(sandbox().futures.positions()).toEqual([]);
	});
});
