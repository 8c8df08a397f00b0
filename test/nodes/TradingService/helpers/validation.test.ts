import {
	accountId,
	accountTypeValue,
	coin,
	inputError,
	integerInRange,
	numberMayHaveLostDigits,
	oneOf,
	positiveDecimal,
	strictBoolean,
	symbol,
	timestampMs,
} from '../../../../nodes/TradingService/helpers/validation';
import { node, refusal } from '../../../support/fixedNode';

// The input checks that run before anything is sent: fixed vectors of what is accepted (and
// returned unchanged) and the errors, which name the field, what was wrong and the fix.

describe('inputError', () => {
	it('says "<field>: <problem>", with the fix as description and the item index', () => {
		const error = inputError(node, 'Quantity', 'is empty', 'Enter a quantity.', 3);
		expect(error.message).toBe('Quantity: is empty');
		expect(error.description).toBe('Enter a quantity.');
		expect(error.context.itemIndex).toBe(3);
	});
});

describe('positiveDecimal', () => {
	it('returns a plain positive decimal exactly as given, and a number as its own text', () => {
		expect(positiveDecimal(node, 'Quantity', '0.015')).toBe('0.015');
		expect(positiveDecimal(node, 'Quantity', '50000.10')).toBe('50000.10');
		expect(positiveDecimal(node, 'Quantity', 2.5)).toBe('2.5');
	});

	it.each(['-1', '+1', '1,5', ' 1', '1.', '.5', '01', '1e-7', 'abc'])(
		'refuses %p, naming the field and asking for a plain positive decimal',
		(value) => {
			const error = refusal(() => positiveDecimal(node, 'Quantity', value, 1));
			expect(error.message).toBe(`Quantity: "${value}" is not a decimal number`);
			expect(error.description).toMatch(
				/^Enter Quantity as a plain positive decimal such as 0\.015/,
			);
			expect(error.context.itemIndex).toBe(1);
		},
	);

	it('refuses a number whose text is an exponent, asking for text instead', () => {
		const error = refusal(() => positiveDecimal(node, 'Quantity', 1e-7));
		expect(error.message).toBe('Quantity: "1e-7" is not a decimal number');
		expect(error.description).toContain('Pass very small or very large values as text');
	});

	it('says which of empty and missing it was', () => {
		expect(refusal(() => positiveDecimal(node, 'Price', '')).message).toBe(
			'Price: an empty value is not a decimal number',
		);
		expect(refusal(() => positiveDecimal(node, 'Price', undefined)).message).toBe(
			'Price: nothing is not a decimal number',
		);
	});

	it('refuses zero in any spelling', () => {
		for (const zero of ['0', '0.000', 0]) {
			const error = refusal(() => positiveDecimal(node, 'Quantity', zero));
			expect(error.message).toBe('Quantity: must be greater than zero');
			expect(error.description).toBe('Enter a Quantity above 0.');
		}
	});
});

describe('defect 10: strictBoolean (the booleans that decide whether money moves)', () => {
	it('defect 10: takes true and false as they are', () => {
		expect(strictBoolean(node, 'Test Only', true)).toBe(true);
		expect(strictBoolean(node, 'Test Only', false)).toBe(false);
	});

	it.each([
		['true', 'the text "true"'],
		['TRUE', 'the text "TRUE"'],
		['false', 'the text "false"'],
		['yes', 'the text "yes"'],
		['', 'an empty value'],
		[1, 'the number 1'],
		[0, 'the number 0'],
		[null, 'nothing (its expression gave no value)'],
		[undefined, 'nothing (its expression gave no value)'],
		[{ value: true }, '"{"value":true}"'],
	])('defect 10: refuses %p, naming the field and the fix', (value, what) => {
		const error = refusal(() => strictBoolean(node, 'Test Only', value, 2));
		expect(error.message).toBe(`Test Only: ${what} is not true or false`);
		expect(error.description).toContain("{{ $json.test === 'true' }}");
		expect(error.context.itemIndex).toBe(2);
	});
});

describe('defect 12: numbers that may have lost digits', () => {
	it.each([
		[0.1, false],
		[50000.5, false],
		[0.000000015, false],
		[123456789012345, false],
		[9007199254740991, false],
		[1e20, false],
		[0.123456789012345, false],
		[0.123456789012345678, true],
		[0.1 + 0.2, true],
		[1234567890.1234567, true],
		[12345678901234567890, true],
	])('%p: %p', (value, lost) => {
		expect(numberMayHaveLostDigits(value)).toBe(lost);
	});

	it('defect 12: positiveDecimal refuses such a number, naming the field; the same digits as text pass', () => {
		expect(refusal(() => positiveDecimal(node, 'Quantity', 0.1 + 0.2)).message).toBe(
			'Quantity: the number 0.30000000000000004 may have lost digits',
		);
		expect(positiveDecimal(node, 'Quantity', '0.123456789012345678')).toBe('0.123456789012345678');
	});
});

describe('accountId', () => {
	it('accepts numeric strings of up to 20 digits, and safe integers as their text', () => {
		expect(accountId(node, 'From Account ID', '1470000000000000001')).toBe('1470000000000000001');
		expect(accountId(node, 'From Account ID', '99999999999999999999')).toBe('99999999999999999999');
		expect(accountId(node, 'From Account ID', 10001)).toBe('10001');
	});

	it.each([
		['123456789012345678901', '"123456789012345678901"'],
		['10001 ', '"10001 "'],
		['-1', '"-1"'],
		[2 ** 63, '"9223372036854776000"'],
		['', 'an empty value'],
	])('refuses %p, naming the field', (value, shown) => {
		const error = refusal(() => accountId(node, 'To Account ID', value));
		expect(error.message).toBe(`To Account ID: ${shown} is not an account ID`);
		expect(error.description).toContain('numeric strings of up to 20 digits');
	});
});

describe('symbol, coin and oneOf', () => {
	it('a symbol is upper-case letters and digits, without a separator', () => {
		expect(symbol(node, 'Symbol', 'BTCUSDT')).toBe('BTCUSDT');
		for (const bad of ['btcusdt', 'BTC-USDT', 'BTC/USDT', 'B', ' BTCUSDT']) {
			const error = refusal(() => symbol(node, 'Symbol', bad));
			expect(error.message).toBe(`Symbol: "${bad}" is not a trading pair symbol`);
			expect(error.description).toBe(
				'Enter the symbol in upper case without separators, e.g. BTCUSDT.',
			);
		}
	});

	it('a coin is letters and digits in any case, sent as typed', () => {
		expect(coin(node, 'Coin', 'usdt')).toBe('usdt');
		expect(refusal(() => coin(node, 'Coin', 'US DT')).message).toBe(
			'Coin: "US DT" is not a coin name',
		);
	});

	it('oneOf takes only an allowed value, exactly, and lists them in the fix', () => {
		expect(oneOf(node, 'Side', 'SELL', ['BUY', 'SELL'])).toBe('SELL');
		const error = refusal(() => oneOf(node, 'Side', 'buy', ['BUY', 'SELL']));
		expect(error.message).toBe('Side: "buy" is not allowed');
		expect(error.description).toBe('Use one of: BUY, SELL.');
	});
});

describe('timestampMs', () => {
	it('reads ISO 8601 strings, millisecond timestamps, dates and Luxon-like DateTimes', () => {
		const ms = Date.UTC(2026, 0, 31, 12, 0, 0);
		expect(timestampMs(node, 'Start', '2026-01-31T12:00:00Z')).toBe(ms);
		expect(timestampMs(node, 'Start', '2026-01-31 12:00:00Z')).toBe(ms);
		expect(timestampMs(node, 'Start', '2026-01-31T13:00:00+01:00')).toBe(ms);
		expect(timestampMs(node, 'Start', '2026-01-31T12:00:00.250Z')).toBe(ms + 250);
		expect(timestampMs(node, 'Start', String(ms))).toBe(ms);
		expect(timestampMs(node, 'Start', ms)).toBe(ms);
		expect(timestampMs(node, 'Start', new Date(ms))).toBe(ms);
		expect(timestampMs(node, 'Start', { toMillis: () => ms })).toBe(ms);
	});

	it.each([
		'2026-02-30T00:00:00Z',
		'2026-01-31T24:00:00Z',
		'2026-01-31T12:60:00Z',
		'March 7',
		' 2026-01-31T12:00:00Z',
		'',
		-1,
		1.5,
		Number.NaN,
		null,
	])('refuses %p as a date and time, naming the field and the formats', (value) => {
		const error = refusal(() => timestampMs(node, 'End', value, 0));
		expect(error.message).toMatch(/^End: .* is not a date and time$/);
		expect(error.description).toContain('2026-01-31T12:00:00Z or a millisecond timestamp');
	});
});

describe('integerInRange and accountTypeValue', () => {
	it('integerInRange takes a whole number within the bounds, bounds included', () => {
		expect(integerInRange(node, 'Limit', 1, 1, 500)).toBe(1);
		expect(integerInRange(node, 'Limit', 500, 1, 500)).toBe(500);
		for (const bad of [0, 501, 2.5, '5']) {
			const error = refusal(() => integerInRange(node, 'Limit', bad, 1, 500));
			expect(error.message).toMatch(/^Limit: .* is out of range$/);
			expect(error.description).toBe('Enter a whole number from 1 to 500.');
		}
	});

	it('accountTypeValue takes Any (0) or an account type of §2.3, as a number or digits', () => {
		expect([0, 1, '3', 5, '6'].map((value) => accountTypeValue(node, value))).toEqual([
			0, 1, 3, 5, 6,
		]);
		const error = refusal(() => accountTypeValue(node, '2'));
		expect(error.message).toBe('Account Type: "2" is not an account type');
		expect(error.description).toBe(
			'Use Any (0) or one of: Spot Trading Account (1), Contract Trading Account (3), Custody Account (5), Fiat Account (6).',
		);
	});
});
