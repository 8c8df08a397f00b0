/**
 * Issue 42: forms a trader can read. Price, Quantity and Amount name the coin they are in, every
 * number of the order forms its unit, Create Many's auto-map notice says what to do in words, and
 * the booleans start with "Whether" (n8n's rule).
 */
import type { INodeProperties } from 'n8n-workflow';

import { TradingService } from '../../../../nodes/TradingService/TradingService.node';

/** A version's properties of one operation, as n8n shows them, with the options of collections. */
function properties(version: number, resource: string, operation: string): INodeProperties[] {
	const shown = new TradingService()
		.getNodeType(version)
		.description.properties.filter(
			(property) =>
				property.displayOptions?.show?.resource?.includes(resource) &&
				property.displayOptions.show.operation?.includes(operation),
		);
	return shown.flatMap((property) =>
		property.type === 'collection'
			? [property, ...((property.options ?? []) as INodeProperties[])]
			: [property],
	);
}
const named = (shown: INodeProperties[], name: string) =>
	shown.filter((property) => property.name === name);

const ORDER_OPERATIONS = ['create', 'createMany', 'get', 'getMany', 'cancel', 'cancelMany'];

describe.each([1, 2])('version %i', (version) => {
	it.each(['create', 'createMany'])(
		'%s: Price, Quantity and Amount name their coin',
		(operation) => {
			const shown = properties(version, 'order', operation);
			for (const price of named(shown, 'price'))
				expect(price.description).toContain(
					'quote coin per base coin (e.g. USDT per BTC for BTCUSDT)',
				);
			for (const quantity of named(shown, 'quantity'))
				expect(quantity.description).toContain('base coin (e.g. BTC for BTCUSDT)');
			for (const amount of named(shown, 'amount'))
				expect(amount.description).toContain('quote coin (e.g. USDT for BTCUSDT)');
			const [maxAmount] = named(shown, 'maxOrderAmount');
			expect(maxAmount.description).toContain('in the quote coin (e.g. USDT for BTCUSDT)');
			const [maxQuantity] = named(shown, 'maxOrderQuantity');
			expect(maxQuantity.description).toContain('in the base coin (e.g. BTC for BTCUSDT)');
		},
	);

	it('every number of the order forms says its unit', () => {
		for (const operation of ORDER_OPERATIONS) {
			for (const number of properties(version, 'order', operation).filter(
				(property) => property.type === 'number',
			)) {
				const text = `${number.displayName} ${number.description ?? ''}`;
				expect({
					name: number.name,
					unit: /millisecond|requests|results|orders/i.test(text),
				}).toEqual({
					name: number.name,
					unit: true,
				});
			}
		}
	});

	it('every boolean of the order forms and Transfer Asset starts with "Whether"', () => {
		const all = [
			...ORDER_OPERATIONS.flatMap((operation) => properties(version, 'order', operation)),
			...properties(version, 'account', 'transferAsset'),
		];
		for (const boolean of all.filter((property) => property.type === 'boolean'))
			expect(boolean.description).toMatch(/^Whether /);
	});

	it('Transfer Asset: the quantity is in the coin picked', () => {
		const [quantity] = named(properties(version, 'account', 'transferAsset'), 'quantity');
		expect(quantity.description).toMatch(/^How much to move, in the coin picked above/);
	});
});

describe('Create Many: the auto-map notice (version 2)', () => {
	it('says how to name the fields and what to do about one named almost right', () => {
		const [notice] = named(properties(2, 'order', 'createMany'), 'autoMapNotice');
		expect(notice.type).toBe('notice');
		expect(notice.displayName).toMatch(
			/^Each input item \(e\.g\. a sheet row\) is one order\. Name its fields exactly:/,
		);
		expect(notice.displayName).toContain('quantity in the base coin');
		expect(notice.displayName).toContain('amount in the quote coin');
		expect(notice.displayName).toContain('rename it, e.g. with an Edit Fields node');
		expect(notice.displayName).not.toMatch(/near miss|is refused/);
	});
});
