import {
	describeReference,
	lookupQuery,
	orderId,
	orderIdList,
	orderReference,
} from '../../../../nodes/TradingService/orders/orderIds';
import { node, refusal } from '../../../support/fixedNode';

// Order IDs and client order IDs given to Get, Cancel and Cancel Many: fixed vectors.

describe('orderId', () => {
	it('keeps an ID of up to 20 digits as text, trimmed; a safe positive integer as its text', () => {
		expect(orderId(node, 'Order ID', '1950000000000000017')).toBe('1950000000000000017');
		expect(orderId(node, 'Order ID', ' 1950000000000000017\n')).toBe('1950000000000000017');
		expect(orderId(node, 'Order ID', '12345678901234567890')).toBe('12345678901234567890');
		expect(orderId(node, 'Order ID', 123)).toBe('123');
	});

	it.each([
		['-5', '"-5"'],
		['123456789012345678901', '"123456789012345678901"'],
		['12a', '"12a"'],
		['', '""'],
		[0, '0'],
		[undefined, 'nothing'],
	])('refuses %p, naming the field and what an order ID is', (value, shown) => {
		const error = refusal(() => orderId(node, 'Order ID', value, 2));
		expect(error.message).toBe(`Order ID: ${shown} is not an order ID`);
		expect(error.description).toContain('the numeric ID the service gave the order');
		expect(error.context.itemIndex).toBe(2);
	});

	it('refuses a number that has lost digits, asking for the ID as text', () => {
		const error = refusal(() => orderId(node, 'Order ID', 1950000000000000017));
		expect(error.message).toBe('Order ID: 1950000000000000000 is a number too large to be exact');
		expect(error.description).toContain('pass the ID as text');
	});
});

describe('orderReference', () => {
	it('takes exactly one of Order ID and Client Order ID; empty and null count as not given', () => {
		expect(orderReference(node, '123', '')).toEqual({ orderId: '123' });
		expect(orderReference(node, null, 'row-1')).toEqual({ clientOrderId: 'row-1' });
		expect(orderReference(node, '', 'row-1')).toEqual({ clientOrderId: 'row-1' });
	});

	it('refuses both, and neither, naming the fields and the fix', () => {
		const both = refusal(() => orderReference(node, '123', 'row-1'));
		expect(both.message).toBe('Order ID: and Client Order ID are both set');
		expect(both.description).toBe(
			'Give the order by Order ID or by Client Order ID, not both: clear one of them.',
		);
		const neither = refusal(() => orderReference(node, '', undefined));
		expect(neither.message).toBe('Order ID: is empty, and so is Client Order ID');
	});

	it('checks the Order ID as orderId does', () => {
		expect(refusal(() => orderReference(node, 'abc', '')).message).toBe(
			'Order ID: "abc" is not an order ID',
		);
	});

	it('a client order ID is 1 to 255 printable characters without spaces', () => {
		expect(orderReference(node, '', 'x'.repeat(255))).toEqual({ clientOrderId: 'x'.repeat(255) });
		const long = refusal(() => orderReference(node, '', 'x'.repeat(256)));
		expect(long.message).toBe('Client Order ID: is 256 characters long');
		expect(long.description).toBe(
			'Use the client order ID the order was placed with: 1 to 255 printable characters without spaces.',
		);
		expect(refusal(() => orderReference(node, '', 'row 1')).message).toBe(
			'Client Order ID: "row 1" is not a client order ID',
		);
		expect(refusal(() => orderReference(node, '', 42)).message).toBe(
			'Client Order ID: 42 is not a client order ID',
		);
	});
});

describe('orderIdList', () => {
	it('splits text on commas, spaces and new lines, keeping each ID once in its first place', () => {
		expect(orderIdList(node, 'Order IDs', '3, 1\n2 ,3,,1')).toEqual(['3', '1', '2']);
	});

	it('takes a list from an expression, numbers included', () => {
		expect(orderIdList(node, 'Order IDs', [5, '6', '5'])).toEqual(['5', '6']);
	});

	it('refuses an empty list, and names the field for the first bad ID', () => {
		for (const empty of ['', ' , \n', []]) {
			const error = refusal(() => orderIdList(node, 'Order IDs', empty));
			expect(error.message).toBe('Order IDs: is empty');
			expect(error.description).toContain('separated by commas');
		}
		expect(refusal(() => orderIdList(node, 'Order IDs', '1, x, 2')).message).toBe(
			'Order IDs: "x" is not an order ID',
		);
	});
});

describe('describeReference and lookupQuery', () => {
	it('name the order as the user gave it, and as the query-order endpoint takes it', () => {
		expect(describeReference({ orderId: '123' })).toBe('order 123');
		expect(describeReference({ clientOrderId: 'abc' })).toBe('the order with client order ID abc');
		expect(lookupQuery({ orderId: '123' })).toEqual({ orderId: '123' });
		expect(lookupQuery({ clientOrderId: 'abc' })).toEqual({ origClientOrderId: 'abc' });
	});
});
