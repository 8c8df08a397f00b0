import type { INode } from 'n8n-workflow';

import {
	checkGuardrails,
	checkOrderOptions,
	readGuardrails,
} from '../../../../nodes/TradingService/helpers/orderOptions';
import type { OrderParams } from '../../../../nodes/TradingService/helpers/orderRules';
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
	it('passes an order inside every limit', () => {
		const guardrails = {
			allowedSymbols: ['BTCUSDT'],
			maxOrderQuantity: '0.01',
			maxOrderAmount: '500',
		};
		expect(refusal(() => checkGuardrails(node, limit(), guardrails, label))).toBeUndefined();
		expect(
			refusal(() => checkGuardrails(node, marketBy('amount', '500'), guardrails, label)),
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
		expect(refusal(() => checkOrderOptions(node, { recvWindow }))).toMatch(
			/^Receive Window \(Ms\): /,
		);
	});

	it('accepts Receive Window from 1 to 60000 ms', () => {
		expect(checkOrderOptions(node, { recvWindow: 1 }).recvWindow).toBe(1);
		expect(checkOrderOptions(node, { recvWindow: 60000 }).recvWindow).toBe(60000);
	});
});
