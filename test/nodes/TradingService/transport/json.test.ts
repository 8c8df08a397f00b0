import {
	MAYBE_INEXACT_NUMBER,
	parseJsonKeepingDigits,
} from '../../../../nodes/TradingService/transport/answer';
import {
	JsonSyntaxError,
	MAX_JSON_DEPTH,
	parseJsonExactly,
} from '../../../../nodes/TradingService/transport/jsonParser';
import { TEXT_FIELDS } from '../../../../nodes/TradingService/transport/textFields';
import { mulberry32 } from '../../../../sandbox/prng';

describe('parseJsonKeepingDigits: integers beyond 2^53 keep every digit', () => {
	it.each([
		['9007199254740991', 9007199254740991],
		['-9007199254740991', -9007199254740991],
		['9007199254740992', '9007199254740992'],
		['-9007199254740992', '-9007199254740992'],
		['1470000000000000000001', '1470000000000000000001'],
		['18446744073709551615', '18446744073709551615'],
		[
			'{"orderId":1992830482934820385,"price":"10"}',
			{ orderId: '1992830482934820385', price: '10' },
		],
		['[1,12345678901234567890,3]', [1, '12345678901234567890', 3]],
		['{"a":{"b":[{"id":99999999999999999999}]}}', { a: { b: [{ id: '99999999999999999999' }] } }],
	])('%s', (text, expected) => {
		expect(parseJsonKeepingDigits(text)).toEqual(expected);
	});

	it('decimals a double holds stay numbers, as JSON.parse reads them', () => {
		expect(parseJsonKeepingDigits('[1.5, 1e30, -2.5E-3, 0.123456789012345, 0, -0]')).toEqual([
			1.5, 1e30, -2.5e-3, 0.123456789012345, 0, -0,
		]);
	});
});

describe('parseJsonKeepingDigits agrees with JSON.parse elsewhere', () => {
	it.each([
		'{}',
		'[]',
		'null',
		'true',
		'false',
		'""',
		'0',
		' \t\r\n {"a" : [ 1 , 2 ] } \n',
		'{"a":1,"a":2}',
		'"\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r"',
		'"\\ud83d\\ude00 and é and 😀"',
		'"\\ud800"',
		'{"success":true,"timestamp":1764000000000,"clientOrderId":"","orderId":"1992830482934820385"}',
		'[{"id":"1","created":"1764000000000","change":"-0.00000001"},{"id":"2","created":"1764000000000","change":"5"}]',
		'{"code":-1146,"msg":"Order creation status unknown"}',
		'{"nested":[[[[{"x":[null,true,false,"s",-1.25e+2]}]]]]}',
	])('%s', (text) => {
		expect(parseJsonKeepingDigits(text)).toEqual(JSON.parse(text));
	});

	it('a "__proto__" key is an own data property, as with JSON.parse', () => {
		const parsed = parseJsonKeepingDigits('{"__proto__":{"polluted":true},"a":1}') as Record<
			string,
			unknown
		>;
		expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
		expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(parsed).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":1}'));
	});
});

describe('parseJsonKeepingDigits refuses what JSON.parse refuses', () => {
	it.each([
		'',
		' ',
		'<html><body>Bad gateway</body></html>',
		'{"a":1',
		'{"a":1,}',
		'[1,]',
		'[1 2]',
		'{a:1}',
		"{'a':1}",
		'01',
		'-',
		'1.',
		'.5',
		'1e',
		'+1',
		'0x10',
		'NaN',
		'tru',
		'nul',
		'"abc',
		'"a\u0001b"',
		'"\\x41"',
		'"\\u12G4"',
		'{"a":1}{"b":2}',
		'{"a":1} x',
		'[12345678901234567890',
		'{12345678901234567890:1}',
	])('%p', (text) => {
		expect(() => JSON.parse(text)).toThrow(SyntaxError);
		expect(() => parseJsonKeepingDigits(text)).toThrow(JsonSyntaxError);
	});

	it(`nesting deeper than ${MAX_JSON_DEPTH} levels is refused, not a stack overflow`, () => {
		expect(
			parseJsonKeepingDigits('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)),
		).toBeDefined();
		expect(() =>
			parseJsonKeepingDigits('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1)),
		).toThrow(/Nesting deeper/);
		expect(() => parseJsonKeepingDigits('['.repeat(100_000))).toThrow(JsonSyntaxError);
	});
});

describe('parseJsonKeepingDigits: numbers under ID keys are always text', () => {
	const ids = new Set(['id', 'orderId', 'accountId']);
	it.each([
		['{"orderId":5,"accountId":10001,"qty":5}', { orderId: '5', accountId: '10001', qty: 5 }],
		['{"orderId":-0,"id":1992830482934820385}', { orderId: '-0', id: '1992830482934820385' }],
		['[{"id":7,"nested":{"id":8}},{"id":"9"}]', [{ id: '7', nested: { id: '8' } }, { id: '9' }]],
		['{"id":1.5,"orderId":2e3,"accountId":null}', { id: '1.5', orderId: '2e3', accountId: null }],
		['{"other":{"orderId":[1]}}', { other: { orderId: [1] } }],
	])('%s', (text, expected) => {
		expect(parseJsonKeepingDigits(text, ids)).toEqual(expected);
	});

	it.each(['{"id":01}', '{"id":-}', '{"id":1.}', '{"id":1e}', '{"id":5 6}'])(
		'still refuses %p',
		(text) => {
			expect(() => parseJsonKeepingDigits(text, ids)).toThrow(JsonSyntaxError);
		},
	);
});

/**
 * parseJsonKeepingDigits tries JSON.parse first and keeps its value only where it is exactly what
 * the exact parser builds. Seeded random documents (long and short integers, IDs as numbers and as
 * strings, decimals, exponents, escapes, deep nesting, broken text) must come out identical from
 * both, and broken text must be refused by both.
 */
describe('parseJsonKeepingDigits (JSON.parse first) is exactly the exact parser', () => {
	const ids = new Set(['id', 'orderId', 'accountId', 'price', 'origQty']);
	const random = mulberry32(20261123);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	const digits = (count: number) =>
		Array.from({ length: count }, (_, index) =>
			index === 0 ? 1 + Math.floor(random() * 9) : Math.floor(random() * 10),
		).join('');
	const numberText = () =>
		pick([
			() => digits(1 + Math.floor(random() * 15)),
			() => digits(16 + Math.floor(random() * 6)),
			() => `-${digits(17)}`,
			() => `${digits(3)}.${digits(4)}0`,
			() => `0.${digits(1 + Math.floor(random() * 20))}`,
			() => `${digits(2)}.${digits(14 + Math.floor(random() * 4))}`,
			() => `${digits(2)}e${digits(2)}`,
			() => `${digits(17)}e-${digits(3)}`,
			() => '0',
			() => '-0',
		])();
	const stringText = () =>
		JSON.stringify(
			pick([
				'',
				'BTCUSDT',
				`${digits(19)}`,
				'a"quoted"\\path',
				'line\nbreak',
				'é€😀',
				`code:${digits(18)}`,
			]),
		);
	const valueText = (depth: number): string => {
		const kind = depth > 4 ? pick(['n', 's', 'l']) : pick(['n', 's', 'l', 'o', 'a', 'o']);
		if (kind === 'n') return numberText();
		if (kind === 's') return stringText();
		if (kind === 'l') return pick(['true', 'false', 'null']);
		const count = Math.floor(random() * 4);
		if (kind === 'a')
			return `[${Array.from({ length: count }, () => valueText(depth + 1)).join(',')}]`;
		const keys = ['id', 'orderId', 'accountId', 'price', 'origQty', 'qty', '__proto__', 'symbol'];
		return `{${Array.from({ length: count }, () => `${JSON.stringify(pick(keys))}:${valueText(depth + 1)}`).join(', ')}}`;
	};
	const outcome = (parse: () => unknown) => {
		try {
			return { value: parse() };
		} catch (error) {
			return { error: error instanceof JsonSyntaxError ? 'JsonSyntaxError' : String(error) };
		}
	};

	it('2,000 seeded documents, 300 of them broken: the same value or the same refusal', () => {
		let viaFastPath = 0;
		for (let index = 0; index < 2000; index++) {
			let text = valueText(0);
			if (index % 7 === 0 && text.length > 2)
				text = text.slice(0, Math.floor(random() * text.length)); // broken
			for (const fields of [ids, new Set<string>()]) {
				const fast = outcome(() => parseJsonKeepingDigits(text, fields));
				const exact = outcome(() => parseJsonExactly(text, fields));
				expect([text, fast]).toEqual([text, exact]);
			}
			if (!MAYBE_INEXACT_NUMBER.test(text)) viaFastPath++;
		}
		// Both paths were exercised: many documents have no long bare integer, many do.
		expect(viaFastPath).toBeGreaterThan(300);
		expect(viaFastPath).toBeLessThan(1900);
	});

	it(`nesting deeper than ${MAX_JSON_DEPTH} is refused on the fast path too`, () => {
		const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
		expect(() => JSON.parse(deep)).not.toThrow();
		expect(() => parseJsonKeepingDigits(deep)).toThrow(JsonSyntaxError);
		const deepest = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
		expect(parseJsonKeepingDigits(deepest)).toEqual(parseJsonExactly(deepest));
	});
});

/**
 * Defect 12: an amount the service sends as a JSON number with more digits than a double holds
 * (18 decimals) came back rounded from both paths (0.123456789012345678 → 0.12345678901234568), so
 * an 18-decimal order no longer matched its own answer and was reported unknown.
 */
describe('defect 12: decimals sent as JSON numbers keep every digit, on both paths', () => {
	const fields = TEXT_FIELDS;
	const both = (text: string, textFields: ReadonlySet<string> = fields) => {
		const fast = parseJsonKeepingDigits(text, textFields);
		expect(parseJsonExactly(text, textFields)).toEqual(fast);
		return fast;
	};

	it.each([
		['{"price":0.123456789012345678}', { price: '0.123456789012345678' }],
		['{"origQty":1.000000000000000001}', { origQty: '1.000000000000000001' }],
		['{"price":10,"origQty":0.5}', { price: '10', origQty: '0.5' }],
		['{"executedQty":0,"avgPrice":-0.0}', { executedQty: '0', avgPrice: '-0.0' }],
		['{"reqAmount":1E-8,"amount":2e+3}', { reqAmount: '1E-8', amount: '2e+3' }],
		[
			'{"balances":[{"free":123.456,"locked":0.000000000000000001,"total":"5"}]}',
			{ balances: [{ free: '123.456', locked: '0.000000000000000001', total: '5' }] },
		],
		[
			'[{"id":1,"change":-0.100000000000000001,"total":7,"created":1764000000000}]',
			[{ id: '1', change: '-0.100000000000000001', total: '7', created: 1764000000000 }],
		],
	])('a decimal field is its literal text: %s', (text, expected) => {
		expect(both(text)).toEqual(expected);
	});

	it.each([
		['[0.123456789012345678]', ['0.123456789012345678']],
		['{"qty":-12345.67890123456789}', { qty: '-12345.67890123456789' }],
		['[0.1234567890123456, 0.123456789012345]', ['0.1234567890123456', 0.123456789012345]],
		['[1.0000000000000000, 100000000000000000000.0]', [1, 1e20]],
		['[1e400, -1e400, 1e-400, 0e-400]', ['1e400', '-1e400', '1e-400', 0]],
		['[0.0000000000000000000001, 1.5e300]', [1e-22, 1.5e300]],
	])('anywhere else, a number a double cannot hold keeps its text: %s', (text, expected) => {
		expect(both(text, new Set())).toEqual(expected);
	});

	it('the fast path hands such answers to the exact parser', () => {
		for (const text of [
			'{"price":0.123456789012345678}',
			'[1e400]',
			'{"x":12.34567890123456}',
			'{"orderId":12345678901234567890}',
		])
			expect(MAYBE_INEXACT_NUMBER.test(text)).toBe(true);
		for (const text of [
			'{"price":"0.123456789012345678","orderId":"1992830482934820385"}',
			'{"price":1.5,"created":1764000000000}',
			'[123456789012345]',
		])
			expect(MAYBE_INEXACT_NUMBER.test(text)).toBe(false);
	});
});
