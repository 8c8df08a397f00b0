import type { INode } from 'n8n-workflow';

import { LIMITS } from '../../../../nodes/TradingService/constants';
import {
	checkGuardrails,
	checkOrderOptions,
	readGuardrails,
} from '../../../../nodes/TradingService/orders/orderOptions';
import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';
import { node as fixedNode } from '../../../support/fixedNode';

// The Options of Create and Create Many on their own: pure checks against fixed orders and
// options. (The same rules through the node, against the sandbox: orderRules.test.ts.)

const node: INode = { ...fixedNode, id: 'orders' };

const label = (field: string) => `orders[0].${field}`;

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

const marketBy = (field: 'quantity' | 'amount', value: string): OrderParams => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'MARKET',
	timeInForce: 'IOC',
	stpMode: 'EXPIRE_TAKER',
	[field]: value,
});

/** The message of what `check` throws, or undefined when it passes. */
function refusal(check: () => unknown): string | undefined {
	try {
		check();
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

describe('readGuardrails', () => {
	it('reads nothing from empty options', () => {
		expect(readGuardrails(node, {})).toEqual({});
		expect(
			readGuardrails(node, { allowedSymbols: '', maxOrderQuantity: null, maxOrderAmount: '' }),
		).toEqual({});
	});

	it('splits Allowed Symbols on commas and spaces, and takes a list as it is', () => {
		expect(readGuardrails(node, { allowedSymbols: 'BTCUSDT, ETHUSDT  SOLUSDT,' })).toEqual({
			allowedSymbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'],
		});
		expect(readGuardrails(node, { allowedSymbols: ['BTCUSDT'] })).toEqual({
			allowedSymbols: ['BTCUSDT'],
		});
	});

	it('keeps the limits exactly as typed', () => {
		expect(readGuardrails(node, { maxOrderQuantity: '0.0100', maxOrderAmount: 250 })).toEqual({
			maxOrderQuantity: '0.0100',
			maxOrderAmount: '250',
		});
	});

	it('refuses a malformed limit, naming the option', () => {
		expect(refusal(() => readGuardrails(node, { maxOrderQuantity: '1,5' }))).toBe(
			'Max Order Quantity: "1,5" is not a decimal number',
		);
		expect(refusal(() => readGuardrails(node, { maxOrderAmount: '0' }))).toBe(
			'Max Order Amount: must be greater than zero',
		);
		expect(refusal(() => readGuardrails(node, { allowedSymbols: 'btcusdt' }))).toMatch(
			/^Allowed Symbols: /,
		);
	});
});

describe('checkGuardrails', () => {
	it('checks the order as fitted: names the option, the fitted values and what Fit changed (issue 39, defect 6)', () => {
		const fitted = [
			{ field: 'price' as const, given: '50000.001', sent: '50000.01', rule: 'tickSize 0.01' },
		];
		const sell = limit({ side: 'SELL', price: '50000.01', quantity: '0.02' });
		let error: (Error & { description?: string }) | undefined;
		try {
			checkGuardrails(node, sell, { maxOrderAmount: '1000.0001' }, label, 0, fitted);
		} catch (caught) {
			error = caught as Error & { description?: string };
		}
		expect(error?.message).toBe(
			'orders[0].quantity: the order as fitted to the symbol rules is worth 1000.0002 (Price 50000.01 × Quantity 0.02), above Max Order Amount (1000.0001)',
		);
		expect(error?.description).toMatch(
			/^The node’s Max Order Amount option refuses the order as Fit to Symbol Rules made it \(price 50000\.001 → 50000\.01 for tickSize 0\.01\), which is what would be sent; nothing was sent\. /,
		);
		const down = [
			{ field: 'quantity' as const, given: '0.0105', sent: '0.010', rule: 'stepSize 0.001' },
		];
		expect(
			refusal(() =>
				checkGuardrails(
					node,
					limit({ quantity: '0.010' }),
					{ maxOrderQuantity: '0.009' },
					label,
					0,
					down,
				),
			),
		).toBe(
			'orders[0].quantity: 0.010 (after Fit to Symbol Rules) is above Max Order Quantity (0.009)',
		);
		// Within the limit as fitted: passes, whatever it was as given.
		expect(
			refusal(() =>
				checkGuardrails(
					node,
					limit({ quantity: '0.010' }),
					{ maxOrderAmount: '500' },
					label,
					0,
					down,
				),
			),
		).toBeUndefined();
	});

	it('passes an order inside every limit', () => {
		const guardrails = {
			allowedSymbols: ['BTCUSDT'],
			maxOrderQuantity: '0.01',
			maxOrderAmount: '500',
		};
		expect(refusal(() => checkGuardrails(node, limit(), guardrails, label))).toBeUndefined();
		// A MARKET order by Amount is checked against Max Order Amount; Max Order Quantity cannot check it.
		const byAmount = { allowedSymbols: ['BTCUSDT'], maxOrderAmount: '500' };
		expect(
			refusal(() => checkGuardrails(node, marketBy('amount', '500'), byAmount, label)),
		).toBeUndefined();
		expect(
			refusal(() =>
				checkGuardrails(node, marketBy('quantity', '0.01'), { maxOrderQuantity: '0.01' }, label),
			),
		).toBeUndefined();
	});

	it('refuses a symbol outside Allowed Symbols', () => {
		expect(
			refusal(() =>
				checkGuardrails(node, limit({ symbol: 'ETHUSDT' }), { allowedSymbols: ['BTCUSDT'] }, label),
			),
		).toBe('orders[0].symbol: ETHUSDT is not in Allowed Symbols (BTCUSDT)');
	});

	it('refuses a quantity above Max Order Quantity, compared exactly', () => {
		expect(
			refusal(() =>
				checkGuardrails(
					node,
					limit({ quantity: '0.0100000001' }),
					{ maxOrderQuantity: '0.01' },
					label,
				),
			),
		).toBe('orders[0].quantity: 0.0100000001 is above Max Order Quantity (0.01)');
	});

	it('values a LIMIT order at Price × Quantity, and a MARKET order by its Amount', () => {
		expect(refusal(() => checkGuardrails(node, limit(), { maxOrderAmount: '499.99' }, label))).toBe(
			'orders[0].quantity: the order is worth 500 (Price × Quantity), above Max Order Amount (499.99)',
		);
		expect(
			refusal(() =>
				checkGuardrails(node, marketBy('amount', '100.5'), { maxOrderAmount: '100' }, label),
			),
		).toBe('orders[0].amount: 100.5 is above Max Order Amount (100)');
	});

	it('refuses a MARKET order by quantity under Max Order Amount: it has no price to value it at', () => {
		expect(
			refusal(() =>
				checkGuardrails(node, marketBy('quantity', '0.001'), { maxOrderAmount: '1000' }, label),
			),
		).toMatch(/^orders\[0\]\.quantity: a MARKET order by Quantity cannot be checked/);
	});

	it('says nothing was sent and which option refused, with the item', () => {
		try {
			checkGuardrails(
				node,
				limit({ symbol: 'ETHUSDT' }),
				{ allowedSymbols: ['BTCUSDT'] },
				label,
				3,
			);
			throw new Error('not refused');
		} catch (error) {
			const { description, context } = error as { description?: string; context?: object };
			expect(description).toMatch(
				/^The node’s Allowed Symbols option refuses this order; nothing was sent\./,
			);
			expect(context).toMatchObject({ itemIndex: 3 });
		}
	});
});

describe('checkOrderOptions', () => {
	it('keeps the options and adds the guardrails', () => {
		expect(
			checkOrderOptions(node, {
				recvWindow: 5000,
				generateClientOrderId: false,
				failOnRejected: true,
				maxOrderQuantity: '2',
			}),
		).toEqual({
			recvWindow: 5000,
			generateClientOrderId: false,
			failOnRejected: true,
			maxOrderQuantity: '2',
			guardrails: { maxOrderQuantity: '2' },
		});
		expect(checkOrderOptions(node, {})).toEqual({ guardrails: {} });
	});

	it.each([0, 60001, 1.5, 'soon'])('refuses Receive Window %p', (recvWindow) => {
		expect(refusal(() => checkOrderOptions(node, { recvWindow }))).toMatch(/^Receive Window: /);
	});

	it('accepts Receive Window from 1 ms to the maximum', () => {
		expect(checkOrderOptions(node, { recvWindow: 1 }).recvWindow).toBe(1);
		expect(checkOrderOptions(node, { recvWindow: LIMITS.maxRecvWindowMs }).recvWindow).toBe(
			LIMITS.maxRecvWindowMs,
		);
	});
});

describe('defect 9: every guardrail and order shape (fixed vectors)', () => {
	// Max Order Quantity checks an order that has a Quantity; Max Order Amount one that has an Amount
	// or a Price and a Quantity. An order the limit cannot check is refused, never let through.
	const orders: Array<[string, OrderParams]> = [];
	for (const side of ['BUY', 'SELL']) {
		orders.push(
			[`LIMIT ${side}`, limit({ side })],
			[`LIMIT_MAKER ${side}`, limit({ side, type: 'LIMIT_MAKER' })],
			[`MARKET ${side} by quantity`, { ...marketBy('quantity', '0.01'), side }],
			[`MARKET ${side} by amount`, { ...marketBy('amount', '500'), side }],
		);
	}
	const byAmountRefused =
		'orders[0].amount: a MARKET order by Amount cannot be checked against Max Order Quantity: its quantity is known only once it trades';
	const byQuantityRefused =
		'orders[0].quantity: a MARKET order by Quantity cannot be checked against Max Order Amount: its price is known only once it trades';
	const expected = (name: string, guardrails: string): string | undefined => {
		if (name.endsWith('by amount') && guardrails !== 'amount') return byAmountRefused;
		if (name.endsWith('by quantity') && guardrails !== 'quantity') return byQuantityRefused;
		return undefined;
	};
	const limits: Record<string, Record<string, string>> = {
		quantity: { maxOrderQuantity: '0.01' },
		amount: { maxOrderAmount: '500' },
		both: { maxOrderQuantity: '0.01', maxOrderAmount: '500' },
	};
	const cases = orders.flatMap(([name, order]) =>
		Object.keys(limits).map((which) => [name, which, order] as const),
	);

	it.each(cases)('defect 9: %s under the %s limit(s)', (name, which, order) => {
		expect(refusal(() => checkGuardrails(node, order, limits[which], label))).toBe(
			expected(name, which),
		);
	});

	it('defect 9: the fix names both limits: with both set, only LIMIT and LIMIT_MAKER orders can be checked', () => {
		const description = (order: OrderParams, guardrails: Record<string, string>) => {
			try {
				checkGuardrails(node, order, guardrails, label);
			} catch (error) {
				return (error as { description?: string }).description;
			}
			return undefined;
		};
		expect(description(marketBy('amount', '50000'), limits.quantity)).toBe(
			'The node’s Max Order Quantity option refuses this order; nothing was sent. Give the order a Quantity (in the base coin) instead of an Amount, or clear Max Order Quantity (Max Order Amount caps an order by Amount).',
		);
		expect(description(marketBy('quantity', '1'), limits.amount)).toBe(
			'The node’s Max Order Amount option refuses this order; nothing was sent. Give the MARKET order an Amount (in the quote coin: what a buy spends or a sell brings in) instead of a Quantity, or clear Max Order Amount (Max Order Quantity caps an order by Quantity).',
		);
		for (const order of [marketBy('amount', '1'), marketBy('quantity', '0.001')]) {
			expect(description(order, limits.both)).toMatch(
				/With both Max Order Quantity and Max Order Amount set, only LIMIT and LIMIT_MAKER orders \(which have a Quantity and a Price\) can be checked/,
			);
		}
	});

	it('defect 9: an order over a limit it can be checked against gets that error first', () => {
		expect(
			refusal(() => checkGuardrails(node, marketBy('amount', '501'), limits.both, label)),
		).toBe('orders[0].amount: 501 is above Max Order Amount (500)');
	});

	it('defect 9: a guardrail whose expression gave nothing is refused; one left empty is no limit', () => {
		const withExpressions: INode = {
			...node,
			parameters: { options: { maxOrderQuantity: '={{ $json.cap }}', maxOrderAmount: '' } },
		};
		expect(
			refusal(() =>
				readGuardrails(withExpressions, { maxOrderQuantity: undefined, maxOrderAmount: '' }),
			),
		).toBe('Max Order Quantity: its expression gave no value');
		expect(readGuardrails(node, { maxOrderQuantity: '', maxOrderAmount: '' })).toEqual({});
	});
});

describe('defect 10: the boolean options take true or false only', () => {
	it.each([
		['testOnly', 'Test Only'],
		['generateClientOrderId', 'Generate Client Order ID'],
		['failOnRejected', 'Fail on Any Rejected Order'],
	])('defect 10: %s', (name, label) => {
		for (const [value, what] of [
			['true', 'the text "true"'],
			['TRUE', 'the text "TRUE"'],
			[1, 'the number 1'],
			[undefined, 'nothing (its expression gave no value)'],
		] as const) {
			expect(refusal(() => checkOrderOptions(node, { [name]: value }))).toBe(
				`${label}: ${what} is not true or false`,
			);
		}
		expect(checkOrderOptions(node, { [name]: true })).toMatchObject({ [name]: true });
		expect(checkOrderOptions(node, { [name]: false })).toMatchObject({ [name]: false });
		expect(checkOrderOptions(node, {})).not.toHaveProperty(name);
	});
});
