import {
	JsonSyntaxError,
	MAX_JSON_DEPTH,
	parseJsonExactly,
} from '../../../../nodes/TradingService/transport/jsonParser';

// The exact parser on its own, against fixed texts: what it builds, and where it refuses.
// (Its agreement with the fast path over seeded documents: answer.test.ts.)

const IDS: ReadonlySet<string> = new Set(['id', 'orderId']);

/** The refusal of `text`: message and position. */
function refusal(text: string): { message: string; position: number } {
	try {
		parseJsonExactly(text);
	} catch (error) {
		expect(error).toBeInstanceOf(JsonSyntaxError);
		const { message, position } = error as JsonSyntaxError;
		return { message, position };
	}
	throw new Error(`${text} was accepted`);
}

describe('parseJsonExactly: values', () => {
	it.each([
		['0', 0],
		['-0', -0],
		['9007199254740991', 9007199254740991],
		['9007199254740992', '9007199254740992'],
		['-9007199254740993', '-9007199254740993'],
		['18446744073709551615', '18446744073709551615'],
		['1.5', 1.5],
		['1e3', 1000],
		['12345678901234567890.5', '12345678901234567890.5'],
		['0.123456789012345678', '0.123456789012345678'],
		['0.12345678901234', 0.12345678901234],
		['1E+2', 100],
		['true', true],
		['false', false],
		['null', null],
		['"text"', 'text'],
		[' \t\r\n[1, "2", {"a": null}] \n', [1, '2', { a: null }]],
		['{}', {}],
		['[]', []],
	])('%s', (text, value) => {
		expect(parseJsonExactly(text)).toEqual(value);
	});

	it('keeps a large integer as its exact digits wherever it is', () => {
		expect(
			parseJsonExactly('{"balances":[{"total":123456789012345678901,"n":[9007199254740993]}]}'),
		).toEqual({ balances: [{ total: '123456789012345678901', n: ['9007199254740993'] }] });
	});

	it('turns any number under a key of textFields into its literal text, and nothing else', () => {
		expect(
			parseJsonExactly(
				'{"id":5,"orderId":-12,"qty":5,"nested":{"id":7.50,"orderId":"9"},"x":{"id":1e-3}}',
				IDS,
			),
		).toEqual({
			id: '5',
			orderId: '-12',
			qty: 5,
			nested: { id: '7.50', orderId: '9' },
			x: { id: '1e-3' },
		});
	});

	it('reads every escape, and surrogate pairs written as two \\u escapes', () => {
		expect(parseJsonExactly('"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"')).toBe(
			'a"b\\c/d\b\f\n\r\té😀',
		);
	});

	it('reads long strings, with and without escapes, as JSON.parse does', () => {
		const long = 'x'.repeat(40);
		expect(parseJsonExactly(`"${long}"`)).toBe(long);
		expect(parseJsonExactly(`"${long}\\n${long}"`)).toBe(`${long}\n${long}`);
	});

	it('makes a "__proto__" key an own property, and later keys win', () => {
		const value = parseJsonExactly('{"__proto__":{"polluted":true},"a":1,"a":2}') as Record<
			string,
			unknown
		>;
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
		expect(Object.keys(value)).toEqual(['__proto__', 'a']);
		expect(value.a).toBe(2);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});

describe('parseJsonExactly: refusals name what is wrong and where', () => {
	it.each([
		['', 'Unexpected end of JSON', 0],
		['[1,]', 'Unexpected character', 3],
		['{"a":1,}', 'Expected a property name', 7],
		['{"a" 1}', 'Expected ":"', 5],
		['{"a":1 "b":2}', 'Expected "," or "}"', 7],
		['[1 2]', 'Expected "," or "]"', 3],
		['01', 'Unexpected text after the JSON value', 1],
		['-', 'Bad number', 1],
		['1.', 'Bad number', 2],
		['1e+', 'Bad number', 3],
		['"a\tb"', 'Control character in a string', 2],
		['"abc', 'Unterminated string', 4],
		['"a\\x"', 'Bad escape', 3],
		['"\\u12g4"', 'Bad \\u escape', 5],
		['tru', 'Unexpected character', 0],
		['NaN', 'Unexpected character', 0],
		['// comment\n1', 'Unexpected character', 0],
	])('%p: %s at %i', (text, message, position) => {
		expect(refusal(text)).toEqual({ message: `${message} at position ${position}`, position });
	});

	it(`refuses nesting deeper than ${MAX_JSON_DEPTH}, and takes ${MAX_JSON_DEPTH}`, () => {
		const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
		expect(() => parseJsonExactly(nested(MAX_JSON_DEPTH))).not.toThrow();
		expect(refusal(nested(MAX_JSON_DEPTH + 1)).message).toBe(
			`Nesting deeper than ${MAX_JSON_DEPTH} at position ${MAX_JSON_DEPTH}`,
		);
		expect(refusal('{"a":'.repeat(MAX_JSON_DEPTH + 1)).message).toMatch(/^Nesting deeper than/);
	});
});
