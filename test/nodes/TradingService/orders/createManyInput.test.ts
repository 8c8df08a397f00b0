import { NodeOperationError } from 'n8n-workflow';

import {
	autoMapLabel,
	autoMappedOrder,
} from '../../../../nodes/TradingService/orders/createManyInput';
import { node } from '../../../support/fixedNode';

// Create Many's "Map Each Item's Fields Automatically": what is read from an item's JSON, and
// the errors that name the item, the field and the fix (fixed vectors).

function refusal(json: Record<string, unknown>, itemIndex = 0): NodeOperationError {
	try {
		autoMappedOrder(node, json as never, itemIndex);
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('expected the item to be refused');
}

describe('autoMappedOrder', () => {
	it('reads the order fields by their exact names and ignores every other field', () => {
		expect(
			autoMappedOrder(
				node,
				{
					row_number: 7,
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '50000.5',
					quantity: '0.001',
					newClientOrderId: 'row-7',
					timeInForce: 'GTC',
					stpMode: 'EXPIRE_MAKER',
					note: { any: 'thing' },
				},
				0,
			),
		).toEqual({
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '50000.5',
			quantity: '0.001',
			newClientOrderId: 'row-7',
			timeInForce: 'GTC',
			stpMode: 'EXPIRE_MAKER',
		});
	});

	it('passes strings on character for character (checks come later, in the order rules)', () => {
		expect(autoMappedOrder(node, { symbol: ' btcusdt ', quantity: '0.00000001' }, 0)).toEqual({
			symbol: ' btcusdt ',
			quantity: '0.00000001',
		});
	});

	it('takes a number whose own text is a plain decimal, as that text', () => {
		expect(autoMappedOrder(node, { price: 50000.5, quantity: 2, amount: 0.015 }, 0)).toEqual({
			price: '50000.5',
			quantity: '2',
			amount: '0.015',
		});
	});

	it('leaves out a field that is null or undefined', () => {
		expect(autoMappedOrder(node, { symbol: 'BTCUSDT', price: null, amount: undefined }, 0)).toEqual(
			{ symbol: 'BTCUSDT' },
		);
	});

	it.each([
		[1e-8, '1e-8'],
		[1e21, '1e+21'],
		[Number.NaN, 'NaN'],
		[Number.POSITIVE_INFINITY, 'Infinity'],
	])(
		'refuses the number %p, which cannot be sent exactly, naming the item and field',
		(value, text) => {
			const error = refusal({ symbol: 'BTCUSDT', quantity: value }, 2);
			expect(error.message).toBe(
				`Item 2, field quantity: the number ${text} is not a plain decimal`,
			);
			expect(error.description).toContain('Give it as a string in the input item');
			expect(error.context.itemIndex).toBe(2);
		},
	);

	it('refuses a number above 2^53, which may already have lost digits', () => {
		const error = refusal({ newClientOrderId: 12345678901234567890 }, 1);
		expect(error.message).toBe(
			'Item 1, field newClientOrderId: the number 12345678901234567000 is too large to be exact',
		);
		expect(error.description).toContain('Give it as a string in the input item');
	});

	it.each([
		[true, 'a boolean'],
		[{ value: '1' }, 'an object'],
		[['1'], 'a list'],
	])('refuses %p as a field value: it is %s, not text or a number', (value, what) => {
		const error = refusal({ symbol: 'BTCUSDT', price: value }, 3);
		expect(error.message).toBe(`Item 3, field price: is ${what}, not text or a number`);
		expect(error.description).toContain('"price": "50000.5"');
	});

	it('refuses a field named like an order field but for case, saying which name to use', () => {
		const error = refusal({ symbol: 'BTCUSDT', Price: '1' }, 0);
		expect(error.message).toBe('Item 0, field Price: is not an order field, but price is');
		expect(error.description).toBe(
			'Rename it to price: field names are read exactly, and Price would otherwise be ignored.',
		);
		expect(refusal({ NEWCLIENTORDERID: 'x' }).message).toBe(
			'Item 0, field NEWCLIENTORDERID: is not an order field, but newClientOrderId is',
		);
	});

	it.each([
		['newClientOrderId ', '"newClientOrderId "', 'newClientOrderId'],
		[' price', '" price"', 'price'],
		['new_client_order_id', 'new_client_order_id', 'newClientOrderId'],
		['time-in-force', 'time-in-force', 'timeInForce'],
		['Stp Mode', '"Stp Mode"', 'stpMode'],
		['quantity\u200b', '"quantity\u200b"', 'quantity'],
		['clientOrderId', 'clientOrderId', 'newClientOrderId'],
		['client_order_id', 'client_order_id', 'newClientOrderId'],
		['origClientOrderId', 'origClientOrderId', 'newClientOrderId'],
		['origQty', 'origQty', 'quantity'],
	])(
		'defect 13: refuses the near-miss key %p, naming the item, the key and the field to use',
		(key, shown, field) => {
			const error = refusal({ symbol: 'BTCUSDT', [key]: 'row-7' }, 5);
			expect(error.message).toBe(`Item 5, field ${shown}: is not an order field, but ${field} is`);
			expect(error.description).toMatch(new RegExp(`^Rename it to ${field}: `));
			expect(error.context.itemIndex).toBe(5);
		},
	);

	it('defect 13: the fix for a name output items use says so', () => {
		expect(refusal({ symbol: 'BTCUSDT', clientOrderId: 'row-7' }).description).toBe(
			'Rename it to newClientOrderId: output items call it clientOrderId, but an order takes it as newClientOrderId, and clientOrderId would otherwise be ignored.',
		);
	});

	it('defect 13: keys that are not near an order field are still ignored', () => {
		expect(
			autoMappedOrder(
				node,
				{
					symbol: 'BTCUSDT',
					row_number: 3,
					qty: '1',
					orderId: '1470000000000000001',
					note: 'priced by hand',
					'a column with a long header that names no order field at all': 'x',
				},
				0,
			),
		).toEqual({ symbol: 'BTCUSDT' });
	});

	it('defect 12: refuses a number of more than 15 significant digits, which may have lost digits', () => {
		const error = refusal({ symbol: 'BTCUSDT', quantity: 0.123456789012345678 }, 1);
		expect(error.message).toBe(
			'Item 1, field quantity: the number 0.12345678901234568 may have lost digits',
		);
		expect(error.description).toContain('Give it as a string in the input item');
	});

	it('refuses an item with none of the order fields, listing the names it reads', () => {
		const error = refusal({ row_number: 4, Ticker: 'BTCUSDT' }, 4);
		expect(error.message).toBe('Item 4: has none of the order fields');
		expect(error.description).toContain(
			'symbol, side, type, quantity, amount, price, newClientOrderId, timeInForce, stpMode',
		);
		expect(error.description).toContain('Each Input Item Is One Order');
	});
});

describe('autoMapLabel', () => {
	it('names an auto-mapped field by its item and its own name', () => {
		expect(autoMapLabel(4)('price')).toBe('Item 4, field price');
	});
});
