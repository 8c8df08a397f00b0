import { decimalAbove, decimalProduct } from '../../../../nodes/TradingService/helpers/decimals';

// Exact decimal arithmetic of the guardrails, against fixed vectors: values a float would get
// wrong are the point.

describe('decimalAbove', () => {
	it.each([
		['1', '1', false],
		['2', '1', true],
		['1', '2', false],
		['0.3', '0.30', false],
		['0.30000000000000001', '0.3', true],
		['1.0000000000000000001', '1', true],
		['10', '9.99999999', true],
		['9.99999999', '10', false],
		['123456789012345678.5', '123456789012345678.4', true],
		['00012', '12', false],
	])('%s above %s: %s', (a, b, above) => {
		expect(decimalAbove(a, b)).toBe(above);
	});
});

describe('decimalProduct', () => {
	it.each([
		['3', '7', '21'],
		['0.1', '0.2', '0.02'],
		['0.1', '3', '0.3'],
		['50000.10', '0.0100', '500.001'],
		['2.5', '0.4', '1'],
		['0.00000001', '0.00000001', '0.0000000000000001'],
		['123456789.123456789', '1000', '123456789123.456789'],
		['99999999999999999', '99999999999999999', '9999999999999999800000000000000001'],
	])('%s × %s = %s', (a, b, product) => {
		expect(decimalProduct(a, b)).toBe(product);
	});

	it('a product is exact where floating point is not', () => {
		expect(0.1 * 3).not.toBe(0.3);
		expect(decimalProduct('0.1', '3')).toBe('0.3');
	});
});
