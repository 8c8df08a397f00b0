import {
	decimalText,
	integerOf,
	priceChange,
	priceChangePercent,
} from '../../../../nodes/TradingService/market/marketReads';

// Fixed vectors: the 24-hour change the node works out from the ticker's last and open prices,
// exactly, and how the service's decimals reach items.

describe('priceChange', () => {
	it.each([
		['101.50', '100', '1.50'],
		['99', '100.25', '-1.25'],
		['100', '100', '0'],
		['0.000000004', '0.000000005', '-0.000000001'],
		['0.100000000000000001', '0.1', '0.000000000000000001'],
		['50000.1', '49999.99', '0.11'],
	])('%s − %s = %s', (last, open, change) => {
		expect(priceChange(last, open)).toBe(change);
	});

	it('is empty when a price is missing or not a decimal', () => {
		expect(priceChange('', '1')).toBe('');
		expect(priceChange('1', '1e-7')).toBe('');
	});
});

describe('priceChangePercent', () => {
	it.each([
		['110', '100', '10.00'],
		['90', '100', '-10.00'],
		['100', '100', '0.00'],
		// 1/3 % and 2/3 %: rounded to the nearest hundredth
		['100.333333', '100', '0.33'],
		['100.666666', '100', '0.67'],
		// exact halves: away from zero on both sides
		['100.005', '100', '0.01'],
		['99.995', '100', '-0.01'],
		['100.015', '100', '0.02'],
		['99.985', '100', '-0.02'],
		// less than half a hundredth: no "-0.00"
		['99.996', '100', '0.00'],
		['0.000000004', '0.000000003', '33.33'],
		['0.000000002', '0.000000003', '-33.33'],
		['250', '100', '150.00'],
	])('(%s − %s) / open × 100 = %s', (last, open, percent) => {
		expect(priceChangePercent(last, open)).toBe(percent);
	});

	it('is empty when the open price is zero, or a price is not a decimal', () => {
		expect(priceChangePercent('1', '0')).toBe('');
		expect(priceChangePercent('1', '0.000')).toBe('');
		expect(priceChangePercent('x', '1')).toBe('');
	});
});

describe('decimalText', () => {
	it('keeps strings exactly and writes numbers as plain digits', () => {
		expect(decimalText('50000.10')).toBe('50000.10');
		expect(decimalText(0.5)).toBe('0.5');
		expect(decimalText(1e-7)).toBe('0.0000001');
		expect(decimalText(1.5e-7)).toBe('0.00000015');
		expect(decimalText(2.5e21)).toBe('2500000000000000000000');
		expect(decimalText(-3e-7)).toBe('-0.0000003');
		expect(decimalText(undefined)).toBe('');
		expect(decimalText(null)).toBe('');
		expect(decimalText(Number.NaN)).toBe('');
	});
});

describe('integerOf', () => {
	it('numbers and digit strings; anything else is undefined', () => {
		expect(integerOf(1700000000000)).toBe(1700000000000);
		expect(integerOf('1700000000000')).toBe(1700000000000);
		expect(integerOf('1.5')).toBeUndefined();
		expect(integerOf(undefined)).toBeUndefined();
	});
});
