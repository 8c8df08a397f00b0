import { reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { BATCH_PATH, ORDER_PATH, POSITIONS_PATH, bookOrders, queries } from './futuresOrderSupport';
import { BTC, ETH, FUTURES, runFutures } from './support';

const sandbox = useSandbox();
const MARK = '60000';

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

const order = (overrides: Record<string, unknown> = {}) => ({
	symbol: BTC,
	side: 'BUY',
	orderType: 'LIMIT',
	quantityIn: 'base',
	quantity: '0.002',
	price: '50000',
	...overrides,
});
const market = (overrides: Record<string, unknown> = {}) =>
	order({ orderType: 'MARKET', price: undefined, ...overrides });

/** Runs Create Order and expects it refused naming `message`, with no order request sent. */
async function refused(
	parameters: Record<string, unknown>,
	message: RegExp,
	noRequestAtAll = false,
) {
	const before = sandbox().ledger.requests.length;
	const ordersBefore = bookOrders(sandbox()).length;
	const run = await runFutures(sandbox(), 'createOrder', parameters);
	expect(run.error?.message).toMatch(message);
	expect(run.error?.description).toMatch(/nothing was sent/i);
	expect(reportedOutcome(run)).toBe('rejected');
	expect(queries(run.requests, ORDER_PATH, 'POST')).toHaveLength(0);
	if (noRequestAtAll) expect(sandbox().ledger.requests.length).toBe(before);
	expect(bookOrders(sandbox())).toHaveLength(ordersBefore);
	return run;
}

describe('Futures guardrails: limits checked before anything is sent', () => {
	it('Allowed Contracts', async () => {
		await refused(
			order({ guardrails: { allowedContracts: `${ETH}, SOLUSDT-PERPETUAL` } }),
			/^Symbol: BTCUSDT-PERPETUAL is not in Allowed Contracts/,
			true,
		);
	});

	it('Max Leverage: above it, or no leverage given (the contract’s current one cannot be bounded)', async () => {
		await refused(
			order({ options: { leverage: 10 }, guardrails: { maxLeverage: 5 } }),
			/^Leverage: 10 is above Max Leverage \(5\)/,
			true,
		);
		await refused(order({ guardrails: { maxLeverage: 5 } }), /^Leverage: is empty/, true);
		const within = await runFutures(
			sandbox(),
			'createOrder',
			order({ options: { leverage: 5 }, guardrails: { maxLeverage: 5 } }),
		);
		expect(within.items[0]?.json.outcome).toBe('placed');
	});

	it('Max Order Quantity: a base quantity above it; a quote quantity cannot be checked', async () => {
		await refused(
			order({ guardrails: { maxOrderQuantity: '0.001' } }),
			/^Quantity: 0\.002 is above Max Order Quantity \(0\.001\)/,
			true,
		);
		await refused(
			market({ quantityIn: 'quote', quantity: '50', guardrails: { maxOrderQuantity: '1' } }),
			/^Quantity: an order by quote quantity cannot be checked against Max Order Quantity/,
			true,
		);
	});

	it('Reduce Only Required: only an order that reduces may go', async () => {
		await refused(
			order({ side: 'SELL', guardrails: { reduceOnlyRequired: true } }),
			/^Reduce Only: is off, and this node may only reduce positions/,
			true,
		);
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const reduce = await runFutures(
			sandbox(),
			'createOrder',
			market({
				side: 'SELL',
				options: { reduceOnly: true },
				guardrails: { reduceOnlyRequired: true },
			}),
		);
		expect(reduce.items[0]?.json.outcome).toBe('placed');
	});
});

describe('Futures guardrails: Reduce Only Required refuses a BUY (positions are LONG only)', () => {
	it.each([
		['with Reduce Only off', {}],
		['with Reduce Only on', { options: { reduceOnly: true } }],
	])('a BUY %s is refused naming Side and the guardrail, no request sent', async (_what, extra) => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const run = await refused(
			market({ ...extra, guardrails: { reduceOnlyRequired: true } }),
			/^Side: BUY never reduces a position \(positions are LONG only\), and this node may only reduce positions/,
			true,
		);
		expect(run.error?.description).toContain('Reduce Only Required guardrail refuses this order');
		expect(run.error?.description).toContain(
			'A BUY never reduces a LONG position: use Side Sell with Reduce Only on, or Close Position.',
		);
		expect(sandbox().futures.positions()[0].baseQty).toBe('0.01');
	});
});

describe('Futures guardrails: Max Order Notional', () => {
	it('a LIMIT order at Price × Quantity, before any request', async () => {
		await refused(
			order({ guardrails: { maxOrderNotional: '99' } }),
			/^Quantity: the order is worth 100 \(Price 50000 × Quantity 0\.002\), above Max Order Notional \(99\)/,
			true,
		);
	});

	it('a quote quantity as sent', async () => {
		await refused(
			market({ quantityIn: 'quote', quantity: '150', guardrails: { maxOrderNotional: '100' } }),
			/^Quantity: the order is worth 150 \(its quote quantity\)/,
			true,
		);
	});

	it('a MARKET order at the mark price, read from the position', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const run = await refused(
			market({ guardrails: { maxOrderNotional: '100' } }),
			/^Quantity: the order is worth 120 \(Quantity 0\.002 × the mark price 60000\)/,
		);
		expect(queries(run.requests, POSITIONS_PATH, 'GET')).toHaveLength(1);
		const within = await runFutures(
			sandbox(),
			'createOrder',
			market({ guardrails: { maxOrderNotional: '120' } }),
		);
		expect(within.items[0]?.json.outcome).toBe('placed');
	});

	it('a STOP order at its trigger price when above the mark', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		await refused(
			order({
				orderType: 'STOP',
				stopPrice: '65000',
				price: '',
				guardrails: { maxOrderNotional: '129' },
			}),
			/worth 130 \(Quantity 0\.002 × 65000 \(above the mark price 60000\)\)/,
		);
	});

	it('a MARKET order by base quantity when the mark price cannot be read (no position): refused, saying what to give instead', async () => {
		const run = await refused(
			market({ guardrails: { maxOrderNotional: '1000' } }),
			/^Quantity: the order cannot be valued: the mark price of BTCUSDT-PERPETUAL could not be read/,
		);
		expect(run.error?.message).toContain(
			'give a Quote Quantity (its notional is the quote) or a Limit price',
		);
	});

	it('a MARKET BUY by quote quantity without a position: its notional is the quote, placed', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			market({ quantityIn: 'quote', quantity: '120', guardrails: { maxOrderNotional: '120' } }),
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderType: 'market' });
		expect(queries(run.requests, POSITIONS_PATH, 'GET')).toHaveLength(0);
	});

	it('a SELL LIMIT priced below the mark at the mark price (it trades at about the mark), read from the position', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		const run = await refused(
			order({
				side: 'SELL',
				price: '50000',
				options: { reduceOnly: true },
				guardrails: { maxOrderNotional: '110' },
			}),
			/^Quantity: the order is worth 120 \(Quantity 0\.002 × the mark price 60000 \(above the Price 50000\)\), above Max Order Notional \(110\)/,
		);
		expect(queries(run.requests, POSITIONS_PATH, 'GET')).toHaveLength(1);
		const above = await runFutures(
			sandbox(),
			'createOrder',
			order({
				side: 'SELL',
				price: '65000',
				options: { reduceOnly: true },
				guardrails: { maxOrderNotional: '130' },
			}),
		);
		expect(above.items[0]?.json.outcome).toBe('placed');
	});
});

describe('Futures guardrails: Fit to Contract Rules', () => {
	it('off: a price off the tick is refused naming it, with the nearest valid prices', async () => {
		await refused(
			order({ price: '50000.05' }),
			/^Price: 50000\.05 is not a multiple of the tick size of BTCUSDT-PERPETUAL, 0\.1 \(nearest: 50000 and 50000\.1\)/,
		);
	});

	it('on: a BUY’s price down, the quantity down, the output says what changed', async () => {
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ price: '50000.05', quantity: '0.0025', guardrails: { fitToContractRules: true } }),
		);
		expect(run.error).toBeUndefined();
		const [query] = queries(run.requests, ORDER_PATH, 'POST');
		expect([query.get('price'), query.get('baseQty')]).toEqual(['50000', '0.002']);
		expect(run.items[0].json.fittedToContractRules).toEqual([
			{ field: 'price', given: '50000.05', sent: '50000', rule: 'tick size 0.1' },
			{ field: 'baseQty', given: '0.0025', sent: '0.002', rule: 'step size 0.001' },
		]);
	});

	it('a guardrail holds for the order as fitted: a SELL’s price rounded up over Max Order Notional is refused', async () => {
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01', price: MARK });
		await refused(
			order({
				side: 'SELL',
				price: '60000.05',
				options: { reduceOnly: true },
				guardrails: { fitToContractRules: true, maxOrderNotional: '120.0001' },
			}),
			/^Quantity: the order is worth 120\.0002 .*above Max Order Notional/,
		);
	});

	it.each([
		[
			'a take profit rounded down onto the price',
			{ takeProfitPrice: '50000.08' },
			/^Take Profit Price: 50000 is not above the order’s price 50000, as Fit to Contract Rules rounded them \(price 50000\.05 → 50000, tpTriggerPrice 50000\.08 → 50000\)/,
		],
		[
			'a stop loss rounded up above the price',
			{ stopLossPrice: '50000.01' },
			/^Stop Loss Price: 50000\.1 is not below the order’s price 50000, as Fit to Contract Rules rounded them/,
		],
	])('on: %s is refused before sending, naming it', async (_what, options, message) => {
		await refused(
			order({ price: '50000.05', options, guardrails: { fitToContractRules: true } }),
			message,
		);
	});

	it('a halted contract is refused naming Symbol', async () => {
		await refused(
			order({ symbol: 'XRPUSDT-PERPETUAL', price: '1', quantity: '10' }),
			/^Symbol: XRPUSDT-PERPETUAL is not trading \(status HALT\)/,
		);
	});
});

describe("Futures guardrails: If Contract Rules Can't Be Read", () => {
	it('refuses by default, nothing sent', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerHtml', times: 10, path: FUTURES.exchangeInfo }] });
		await refused(order(), /the contract rules could not be read/);
	});

	it('Send Without Checking: sent, the item says it was not checked', async () => {
		sandbox().setFaults({ rules: [{ kind: 'answerHtml', times: 10, path: FUTURES.exchangeInfo }] });
		const run = await runFutures(
			sandbox(),
			'createOrder',
			order({ guardrails: { ifContractRulesUnreadable: 'send' } }),
		);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', contractRulesChecked: false });
	});
});

describe('Futures guardrails: Create Many Orders', () => {
	it('an order over a limit refuses its item before any batch is sent', async () => {
		const inputItems = [
			{ json: { symbol: BTC, side: 'BUY', type: 'LIMIT', price: '50000', baseQty: '0.001' } },
			{ json: { symbol: BTC, side: 'BUY', type: 'LIMIT', price: '50000', baseQty: '0.003' } },
		];
		const before = sandbox().ledger.requests.length;
		const run = await runFutures(
			sandbox(),
			'createManyOrders',
			{ guardrails: { maxOrderQuantity: '0.002' } },
			{ inputItems },
		);
		expect(run.error?.message).toMatch(
			/^Item 1, field baseQty: 0\.003 is above Max Order Quantity/,
		);
		expect(sandbox().ledger.requests.length).toBe(before);
		expect(queries(run.requests, BATCH_PATH, 'POST')).toHaveLength(0);
	});
});
