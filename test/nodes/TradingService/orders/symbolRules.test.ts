import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../../../../nodes/TradingService/constants';
import type { ServiceClient } from '../../../../nodes/TradingService/transport';

import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';
import {
	clearSymbolRulesCache,
	parseExchangeInfo,
	readSymbolRules,
	parseSymbolRules,
	symbolRulesItem,
	checkSymbolRules,
	type SymbolRules,
	type SymbolRulesCheck,
} from '../../../../nodes/TradingService/orders/symbolRules';

// Symbol rules on their own: fixed vectors of exchange info and orders, no service. The same rules
// through the node against the sandbox: orders/create.symbolRules.test.ts.

/** An exchange info entry shaped like the UAE documentation's example (USDTAED). */
function entry(overrides: IDataObject = {}, filters: IDataObject[] = []): IDataObject {
	const base: IDataObject[] = [
		{ filterType: 'PRICE_FILTER', minPrice: '0.001', maxPrice: '100000', tickSize: '0.01' },
		{
			filterType: 'LOT_SIZE',
			minQty: '0.00001',
			maxQty: '100',
			stepSize: '0.00001',
			marketOrderMinQty: '0.00001',
			marketOrderMaxQty: '50',
		},
		{ filterType: 'MIN_NOTIONAL', minNotional: '10' },
		{
			filterType: 'TRADE_AMOUNT',
			minAmount: '10',
			maxAmount: '5000000',
			minBuyPrice: '0',
			marketOrderMinAmount: '10',
			marketOrderMaxAmount: '2000000',
		},
		{
			filterType: 'LIMIT_TRADING',
			maxSellPrice: '0',
			buyPriceUpRate: '0.1',
			sellPriceDownRate: '0.1',
			maxEntrustNum: 300,
		},
		{ filterType: 'MARKET_TRADING', buyPriceUpRate: '0.1', sellPriceDownRate: '0.1' },
	];
	const replaced = base.map(
		(filter) => filters.find((other) => other.filterType === filter.filterType) ?? filter,
	);
	return {
		symbol: 'BTCUSDT',
		symbolName: 'BTCUSDT',
		status: 'TRADING',
		baseAsset: 'BTC',
		quoteAsset: 'USDT',
		baseAssetPrecision: '0.00001',
		quotePrecision: '0.00000001',
		filters: replaced,
		...overrides,
	};
}

function rulesOf(overrides: IDataObject = {}, filters: IDataObject[] = []): SymbolRules {
	return parseSymbolRules(entry(overrides, filters))!;
}

const limit = (overrides: Partial<OrderParams> = {}): OrderParams => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	timeInForce: 'GTC',
	price: '50000',
	quantity: '0.01',
	stpMode: 'EXPIRE_TAKER',
	...overrides,
});

const market = (field: 'quantity' | 'amount', value: string, side = 'BUY'): OrderParams => ({
	symbol: 'BTCUSDT',
	side,
	type: 'MARKET',
	timeInForce: 'IOC',
	[field]: value,
	stpMode: 'EXPIRE_TAKER',
});

function sent(check: SymbolRulesCheck): OrderParams {
	if (!check.ok) throw new Error(`refused: ${check.problem.problem}`);
	return check.order;
}

function problem(check: SymbolRulesCheck) {
	if (check.ok) throw new Error(`accepted: ${JSON.stringify(check.order)}`);
	return check.problem;
}

describe('symbol rules: parsing exchange info', () => {
	it('reads every rule of the filters as the text the service gave', () => {
		const rules = rulesOf();
		expect(symbolRulesItem(rules)).toEqual({
			symbol: 'BTCUSDT',
			status: 'TRADING',
			baseAsset: 'BTC',
			quoteAsset: 'USDT',
			tickSize: '0.01',
			stepSize: '0.00001',
			minQuantity: '0.00001',
			maxQuantity: '100',
			marketOrderMinQuantity: '0.00001',
			marketOrderMaxQuantity: '50',
			minNotional: '10',
			minAmount: '10',
			maxAmount: '5000000',
			marketOrderMinAmount: '10',
			marketOrderMaxAmount: '2000000',
			amountStep: '0.00000001',
			limitBuyPriceUpRate: '0.1',
			limitSellPriceDownRate: '0.1',
			marketBuyPriceUpRate: '0.1',
			marketSellPriceDownRate: '0.1',
			maxOpenOrders: 300,
			filters: entry().filters,
		});
	});

	it('gives missing filters as empty text and no open-order cap', () => {
		const rules = parseSymbolRules({ symbol: 'NEWUSDT', status: 'TRADING' })!;
		expect(rules.tickSize).toBe('');
		expect(rules.minNotional).toBe('');
		expect(rules.maxOpenOrders).toBeNull();
		expect(rules.filters).toEqual([]);
	});

	it('keys the rules by symbol and skips entries without one', () => {
		const rules = parseExchangeInfo({
			symbols: [entry(), { status: 'TRADING' }, entry({ symbol: 'ETHUSDT' })],
		});
		expect([...rules.keys()]).toEqual(['BTCUSDT', 'ETHUSDT']);
	});
});

describe('symbol rules: checking an order (no fitting)', () => {
	const rules = rulesOf();

	it('passes an order on the tick and the step, within every limit, unchanged', () => {
		const order = limit({ price: '50000.10', quantity: '0.01000' });
		const check = checkSymbolRules(order, rules, false);
		expect(check).toEqual({ ok: true, order, fitted: [] });
	});

	it('refuses a price off the tick, naming the rule and the two nearest valid prices', () => {
		const found = problem(checkSymbolRules(limit({ price: '50000.125' }), rules, false));
		expect(found.field).toBe('price');
		expect(found.problem).toBe(
			'50000.125 is not a multiple of the tick size of BTCUSDT, 0.01 (nearest valid prices: 50000.12 and 50000.13)',
		);
		expect(found.fix).toContain('turn on Fit to Symbol Rules');
		expect(found.fix).toContain('down for a BUY');
		expect(found.fittable).toBe(true);
	});

	it('refuses a quantity off the step, naming the two nearest valid quantities', () => {
		const found = problem(checkSymbolRules(limit({ quantity: '0.010005' }), rules, false));
		expect(found.field).toBe('quantity');
		expect(found.problem).toBe(
			'0.010005 is not a multiple of the step size of BTCUSDT, 0.00001 (nearest valid quantities: 0.01 and 0.01001)',
		);
		expect(found.fix).toContain('turn on Fit to Symbol Rules to have the node round it down');
	});

	it('refuses an order worth less than the minimum notional, which rounding cannot fix', () => {
		const found = problem(
			checkSymbolRules(limit({ price: '50000', quantity: '0.0001' }), rules, false),
		);
		expect(found.problem).toBe(
			'the order is worth 5 (Price × Quantity), which is below the minimum order value of BTCUSDT, 10',
		);
		expect(found.fittable).toBe(false);
		expect(found.fix).not.toContain('Fit to Symbol Rules');
	});

	it('refuses quantities outside [minQty, maxQty] and values above maxAmount', () => {
		expect(problem(checkSymbolRules(limit({ quantity: '101' }), rules, false)).problem).toContain(
			'above the maximum quantity of BTCUSDT, 100',
		);
		const tiny = rulesOf({}, [
			{ filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '100', stepSize: '0.00001' },
			{ filterType: 'MIN_NOTIONAL', minNotional: '0' },
		]);
		expect(
			problem(checkSymbolRules(limit({ price: '50000', quantity: '0.0005' }), tiny, false)).problem,
		).toContain('0.0005 is below the minimum quantity of BTCUSDT, 0.001');
		expect(
			problem(checkSymbolRules(limit({ price: '99999', quantity: '99' }), rules, false)).problem,
		).toContain('is above the maximum order amount of BTCUSDT, 5000000');
	});

	it('checks a MARKET order by quantity against the market quantity limits, not the notional', () => {
		expect(sent(checkSymbolRules(market('quantity', '0.00001'), rules, false)).quantity).toBe(
			'0.00001',
		);
		expect(problem(checkSymbolRules(market('quantity', '51'), rules, false)).problem).toContain(
			'above the maximum MARKET order quantity of BTCUSDT, 50',
		);
	});

	it('checks a MARKET order by amount against the amount step (quotePrecision) and market amount limits', () => {
		expect(
			problem(checkSymbolRules(market('amount', '20.000000001'), rules, false)).problem,
		).toContain('is not a multiple of the amount step (quote precision) of BTCUSDT, 0.00000001');
		expect(problem(checkSymbolRules(market('amount', '9.99'), rules, false)).problem).toContain(
			'9.99 is below the minimum MARKET order amount of BTCUSDT, 10',
		);
		expect(problem(checkSymbolRules(market('amount', '2000001'), rules, false)).problem).toContain(
			'above the maximum MARKET order amount',
		);
	});

	it('refuses a symbol missing from exchange info, and HALT or IN_PREVIEW pairs', () => {
		expect(problem(checkSymbolRules(limit(), undefined, true))).toMatchObject({
			field: 'symbol',
			problem: 'BTCUSDT is not a trading pair of the exchange',
		});
		expect(problem(checkSymbolRules(limit(), rulesOf({ status: 'HALT' }), true)).problem).toContain(
			'is halted',
		);
		expect(
			problem(checkSymbolRules(limit(), rulesOf({ status: 'IN_PREVIEW' }), true)).problem,
		).toContain('not open for trading yet');
		expect(checkSymbolRules(limit(), rulesOf({ status: 'RESUMING' }), false).ok).toBe(true);
	});

	it('reads a filter value "0", empty or missing as no limit', () => {
		const open = rulesOf({ quotePrecision: '' }, [
			{ filterType: 'PRICE_FILTER', tickSize: '0' },
			{ filterType: 'LOT_SIZE', stepSize: '', minQty: '0', maxQty: '0' },
			{ filterType: 'MIN_NOTIONAL' },
			{ filterType: 'TRADE_AMOUNT', minAmount: '0.0', maxAmount: '' },
		]);
		const order = limit({ price: '0.123456789', quantity: '123456.987654321' });
		expect(checkSymbolRules(order, open, false)).toEqual({ ok: true, order, fitted: [] });
		const byAmount = market('amount', '0.000000000000000001');
		expect(checkSymbolRules(byAmount, open, false)).toEqual({
			ok: true,
			order: byAmount,
			fitted: [],
		});
	});

	it('compares exactly, with no floating point: 0.1 × 3 is 0.3, on a 0.1 tick', () => {
		const tenths = rulesOf({}, [
			{ filterType: 'PRICE_FILTER', tickSize: '0.1' },
			{ filterType: 'LOT_SIZE', stepSize: '0.1', minQty: '0.1', maxQty: '1000' },
			{ filterType: 'MIN_NOTIONAL', minNotional: '0.3' },
			{ filterType: 'TRADE_AMOUNT', minAmount: '0.03' },
		]);
		// In doubles 0.3 % 0.1 is 0.09999999999999998 and 0.1 × 3 < 0.3 is false only by luck.
		expect(checkSymbolRules(limit({ price: '0.3', quantity: '1' }), tenths, false).ok).toBe(true);
		expect(checkSymbolRules(limit({ price: '0.1', quantity: '3' }), tenths, false).ok).toBe(true);
		expect(checkSymbolRules(limit({ price: '0.1', quantity: '2.9' }), tenths, false).ok).toBe(
			false,
		);
	});

	it('reads exponent notation in filters exactly', () => {
		const exponent = rulesOf({}, [{ filterType: 'PRICE_FILTER', tickSize: '1e-8' }]);
		expect(checkSymbolRules(limit({ price: '50000.00000001' }), exponent, false).ok).toBe(true);
		expect(checkSymbolRules(limit({ price: '50000.000000001' }), exponent, false).ok).toBe(false);
	});
});

describe('symbol rules: Fit to Symbol Rules', () => {
	const rules = rulesOf();

	it('rounds a BUY price down to the tick and reports the change', () => {
		const check = checkSymbolRules(limit({ price: '50000.129' }), rules, true);
		expect(check).toEqual({
			ok: true,
			order: limit({ price: '50000.12' }),
			fitted: [{ field: 'price', given: '50000.129', sent: '50000.12', rule: 'tickSize 0.01' }],
		});
	});

	it('rounds a SELL price up to the tick', () => {
		expect(
			sent(checkSymbolRules(limit({ side: 'SELL', price: '50000.121' }), rules, true)),
		).toEqual(limit({ side: 'SELL', price: '50000.13' }));
	});

	it('rounds the quantity down to the step, BUY and SELL alike', () => {
		for (const side of ['BUY', 'SELL']) {
			const check = checkSymbolRules(limit({ side, quantity: '0.0123456789' }), rules, true);
			expect(sent(check).quantity).toBe('0.01234');
		}
	});

	it('leaves exact multiples as given, even with trailing zeros', () => {
		const order = limit({ price: '50000.10', quantity: '0.010' });
		expect(checkSymbolRules(order, rules, true)).toEqual({ ok: true, order, fitted: [] });
	});

	it('fits 18-decimal ticks exactly (PEPEETH-like: tick 0.000000000000000001)', () => {
		const pepe = rulesOf({ symbol: 'PEPEETH' }, [
			{ filterType: 'PRICE_FILTER', tickSize: '0.000000000000000001' },
			{ filterType: 'LOT_SIZE', stepSize: '1', minQty: '1000', maxQty: '100000000000' },
			{ filterType: 'MIN_NOTIONAL', minNotional: '0.0001' },
			{ filterType: 'TRADE_AMOUNT', minAmount: '0.0001', maxAmount: '1000' },
		]);
		const order = limit({
			symbol: 'PEPEETH',
			price: '0.0000000041234567891',
			quantity: '50000.9',
		});
		expect(problem(checkSymbolRules(order, pepe, false)).problem).toContain(
			'nearest valid prices: 0.000000004123456789 and 0.00000000412345679',
		);
		const fitted = checkSymbolRules(order, pepe, true);
		expect(sent(fitted)).toMatchObject({ price: '0.000000004123456789', quantity: '50000' });
		const sell = sent(checkSymbolRules({ ...order, side: 'SELL', quantity: '50000' }, pepe, true));
		expect(sell.price).toBe('0.00000000412345679');
		// 0.000000004123456789 × 50000 = 0.00020617283945 ≥ 0.0001
		expect(checkSymbolRules({ ...order, quantity: '20000' }, pepe, true).ok).toBe(false);
	});

	it('refuses a quantity that rounds down to zero, whatever the side', () => {
		for (const side of ['BUY', 'SELL']) {
			const found = problem(checkSymbolRules(limit({ side, quantity: '0.000009' }), rules, true));
			expect(found.problem).toBe('0.000009 rounds down to 0 on the step size of BTCUSDT, 0.00001');
			expect(found.fittable).toBe(false);
		}
		// Without Fit the same order is off the step, and fitting would not help.
		expect(problem(checkSymbolRules(limit({ quantity: '0.000009' }), rules, false))).toMatchObject({
			fittable: false,
			problem: expect.stringContaining('the smallest valid quantity is 0.00001'),
		});
	});

	it('refuses a BUY price that rounds down to zero', () => {
		const found = problem(checkSymbolRules(limit({ price: '0.009' }), rules, true));
		expect(found.problem).toBe('0.009 rounds down to 0 on the tick size of BTCUSDT, 0.01');
	});

	it('refuses what rounding leaves below the minimum quantity, saying it was rounded', () => {
		const lot = rulesOf({}, [
			{ filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '100', stepSize: '0.0005' },
		]);
		expect(sent(checkSymbolRules(limit({ quantity: '0.0014' }), lot, true)).quantity).toBe('0.001');
		const below = problem(checkSymbolRules(limit({ quantity: '0.0009' }), lot, true));
		expect(below.problem).toBe(
			'0.0005 (Fit to Symbol Rules rounded 0.0009 to it) is below the minimum quantity of BTCUSDT, 0.001',
		);
	});

	it('refuses a min notional that rounding cannot fix (a BUY rounded down falls under it)', () => {
		// 1000.005 × 0.01 = 10.00005 ≥ 10, but fitted: 1000 × 0.00999 = 9.99 < 10.
		const found = problem(
			checkSymbolRules(limit({ price: '1000.005', quantity: '0.009999' }), rules, true),
		);
		expect(found.problem).toBe(
			'the order is worth 9.99 (Price × Quantity, after Fit to Symbol Rules), which is below the minimum order value of BTCUSDT, 10',
		);
		expect(found.fittable).toBe(false);
	});

	it('rounds a MARKET amount down to its step and a MARKET quantity down to the step', () => {
		expect(checkSymbolRules(market('amount', '25.123456789'), rules, true)).toEqual({
			ok: true,
			order: market('amount', '25.12345678'),
			fitted: [
				{
					field: 'amount',
					given: '25.123456789',
					sent: '25.12345678',
					rule: 'amountStep 0.00000001',
				},
			],
		});
		expect(sent(checkSymbolRules(market('quantity', '0.123456', 'SELL'), rules, true))).toEqual(
			market('quantity', '0.12345', 'SELL'),
		);
	});

	it('never fits the status or an unknown symbol', () => {
		expect(checkSymbolRules(limit(), rulesOf({ status: 'HALT' }), true).ok).toBe(false);
		expect(checkSymbolRules(limit(), undefined, true).ok).toBe(false);
	});
});

// The per-process cache of symbol rules on its own, with a stand-in client that counts reads and
// a stand-in clock: the lifetime, the shared in-flight read, failed reads never kept, the key. The
// same cache through the node against the sandbox: orders/create.symbolRules.test.ts.

const ANSWER = { symbols: [{ symbol: 'BTCUSDT', status: 'TRADING', filters: [] }] };

function client(baseUrl: string, answers: Array<() => Promise<unknown>> = []) {
	const reads: unknown[] = [];
	const stub = {
		serviceUrl: async () => baseUrl.replace(/\/+$/, '').toLowerCase(),
		request: async (...args: unknown[]) => {
			reads.push(args);
			const next = answers.shift();
			return next === undefined ? ANSWER : await next();
		},
	};
	return { client: stub as unknown as ServiceClient, reads };
}

describe('symbol rules cache', () => {
	let now = 1_000_000;
	beforeEach(() => {
		clearSymbolRulesCache();
		jest.spyOn(Date, 'now').mockImplementation(() => now);
	});
	afterEach(() => jest.restoreAllMocks());

	it('keeps the rules for LIMITS.symbolRulesTtlMs, then reads them again', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c);
		now += LIMITS.symbolRulesTtlMs - 1;
		expect((await readSymbolRules(c)).get('BTCUSDT')?.status).toBe('TRADING');
		expect(reads).toHaveLength(1);
		now += 1;
		await readSymbolRules(c);
		expect(reads).toHaveLength(2);
	});

	it('asks for the MENA site', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c, 3);
		expect(reads[0]).toEqual([
			expect.objectContaining({ path: '/api/v1/exchangeInfo' }),
			{ qs: { site: 'MENA' }, itemIndex: 3 },
		]);
	});

	it('shares one read among callers while it is in flight', async () => {
		let release: (value: unknown) => void = () => undefined;
		const { client: c, reads } = client('http://127.0.0.1:1', [
			async () => await new Promise((resolve) => (release = resolve)),
		]);
		const first = readSymbolRules(c);
		const second = readSymbolRules(c);
		await Promise.resolve();
		await Promise.resolve();
		release(ANSWER);
		expect(await first).toBe(await second);
		expect(reads).toHaveLength(1);
	});

	it('never keeps a failed read: every caller of it fails, the next one reads again', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1', [
			async () => {
				throw new Error('down');
			},
		]);
		await expect(Promise.all([readSymbolRules(c), readSymbolRules(c)])).rejects.toThrow('down');
		expect((await readSymbolRules(c)).has('BTCUSDT')).toBe(true);
		expect(reads).toHaveLength(2);
	});

	it('keys by the normalised Base URL: spellings of one service share, other services do not', async () => {
		const a = client('http://Sandbox.Example/');
		const b = client('http://sandbox.example');
		const other = client('http://other.example');
		await readSymbolRules(a.client);
		await readSymbolRules(b.client);
		await readSymbolRules(other.client);
		expect([a.reads.length, b.reads.length, other.reads.length]).toEqual([1, 0, 1]);
	});

	it('fresh: reads whatever the cache holds, and keeps what it read', async () => {
		const { client: c, reads } = client('http://127.0.0.1:1');
		await readSymbolRules(c);
		await readSymbolRules(c, 0, { fresh: true });
		await readSymbolRules(c);
		expect(reads).toHaveLength(2);
	});
});
