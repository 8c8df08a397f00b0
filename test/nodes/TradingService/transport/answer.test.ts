import { PassThrough } from 'node:stream';

import type { INode } from 'n8n-workflow';

import {
	AttemptDeadline,
	MAX_ANSWER_BYTES,
	MAYBE_INEXACT_NUMBER,
	classifyResponse,
	discardBody,
	parseJsonKeepingDigits,
	readBody,
} from '../../../../nodes/TradingService/transport/answer';
import { ORDER_ENDPOINTS } from '../../../../nodes/TradingService/orders/endpoints';
import { unreadable } from '../../../../nodes/TradingService/transport/errors';
import {
	JsonSyntaxError,
	MAX_JSON_DEPTH,
	parseJsonExactly,
} from '../../../../nodes/TradingService/transport/jsonParser';
import { TEXT_FIELDS } from '../../../../nodes/TradingService/transport/textFields';
import { mulberry32 } from '../../../../sandbox/prng';
import { node as fixedNode } from '../../../support/fixedNode';

// What one answer means, against fixed answers: status, headers and body text in, the body or
// the failure out. (The same through n8n's request helper against the sandbox: request.test.ts.)

const node: INode = { ...fixedNode, id: 'answer' };

const read = ORDER_ENDPOINTS.queryOrder;
const batch = ORDER_ENDPOINTS.batchOrders;

describe('classifyResponse: usable answers', () => {
	it('hands over a 2xx JSON body, IDs and decimals as text whatever their size', () => {
		expect(
			classifyResponse(
				read,
				200,
				{},
				'{"orderId":1470000000000000001,"accountId":7,"price":"1.5","origQty":2}',
			),
		).toEqual({
			body: { orderId: '1470000000000000001', accountId: '7', price: '1.5', origQty: '2' },
		});
	});

	it.each(['0', '"0"', '"0000"', '200'])('treats code %s as success', (code) => {
		expect(classifyResponse(read, 200, {}, `{"code":${code},"orderId":"1"}`)).toEqual({
			body: { code: JSON.parse(code), orderId: '1' },
		});
	});

	it('hands a batch answer with entries to the caller whatever its top-level code', () => {
		const text = '{"code":"-1000","msg":"partly","result":[{"code":"0"}]}';
		expect(classifyResponse(batch, 200, {}, text)).toEqual({ body: JSON.parse(text) });
		// Not on an endpoint without codes per entry, and not on a non-2xx answer.
		expect(classifyResponse(read, 200, {}, text)).toMatchObject({ kind: 'rejected' });
		expect(classifyResponse(batch, 400, {}, text)).toMatchObject({ kind: 'rejected' });
	});
});

describe('classifyResponse: failures', () => {
	it('a code is a refusal, with its message and status', () => {
		expect(classifyResponse(read, 400, {}, '{"code":-1121,"msg":"Invalid symbol."}')).toEqual({
			kind: 'rejected',
			rejection: { code: '-1121', msg: 'Invalid symbol.', httpStatus: 400 },
		});
		expect(classifyResponse(read, 200, {}, '{"code":"-2013"}')).toEqual({
			kind: 'rejected',
			rejection: { code: '-2013', msg: '', httpStatus: 200 },
		});
	});

	it('HTTP 418 is an IP ban, with or without a code, and its Retry-After', () => {
		expect(classifyResponse(read, 418, { 'retry-after': '120' }, '')).toEqual({
			kind: 'rejected',
			rejection: { code: '-3145', msg: 'IP banned', httpStatus: 418, retryAfterMs: 120000 },
		});
		expect(classifyResponse(read, 418, {}, '{"code":"-3146","msg":"banned until later"}')).toEqual({
			kind: 'rejected',
			rejection: {
				code: '-3146',
				msg: 'banned until later',
				httpStatus: 418,
				retryAfterMs: undefined,
			},
		});
	});

	it('HTTP 429 is a rate limit, with the Retry-After it gives', () => {
		expect(classifyResponse(read, 429, { 'retry-after': ['2'] }, 'slow down')).toEqual({
			kind: 'rateLimited',
			retryAfterMs: 2000,
			rejection: { code: '0003', msg: 'Rate limit exceeded', httpStatus: 429 },
		});
		expect(
			classifyResponse(read, 429, { 'retry-after': 'soon' }, '{"code":"-1003","msg":"Too many"}'),
		).toEqual({
			kind: 'rateLimited',
			retryAfterMs: undefined,
			rejection: { code: '-1003', msg: 'Too many', httpStatus: 429 },
		});
	});

	it('a 5xx is unknown, whatever its body', () => {
		expect(classifyResponse(read, 503, {}, '{"code":-1000}')).toEqual({
			kind: 'unknown',
			reason: 'the service failed with HTTP 503',
			detail: 'HTTP 503',
		});
	});

	it('a 2xx that is not JSON is unknown: something answered, nobody can tell what was done', () => {
		for (const text of ['<html>ok</html>', '', '{"orderId":']) {
			expect(classifyResponse(read, 200, {}, text)).toEqual({
				kind: 'unknown',
				reason: 'the service answered with something that is not JSON',
				detail: 'Unreadable answer',
			});
		}
	});

	it('a 404 means the Base URL is wrong, whatever the body says; other statuses are plain HTTP errors', () => {
		expect(classifyResponse(read, 404, {}, '{"code":-1121,"msg":"Invalid symbol."}')).toEqual({
			kind: 'http',
			status: 404,
			reason: 'HTTP 404: the path does not exist at this Base URL',
		});
		expect(classifyResponse(read, 401, {}, 'Unauthorized')).toEqual({
			kind: 'http',
			status: 401,
			reason: 'HTTP 401',
		});
	});
});

describe('unreadable: a body that could not be read', () => {
	it('past the deadline, or broken off: unknown', () => {
		expect(unreadable({ ok: false, failure: 'deadline' }, false, 30000, node)).toEqual({
			kind: 'unknown',
			reason: 'the service did not answer within 30 s',
			detail: 'ETIMEDOUT',
		});
		expect(
			unreadable({ ok: false, failure: 'broken', code: 'ECONNRESET' }, true, 30000, node),
		).toEqual({
			kind: 'unknown',
			reason: 'the answer broke off before it was complete',
			detail: 'ECONNRESET',
		});
	});

	it('too large: a write is unknown, a read fails at once (no retry)', () => {
		const reason = `the answer was larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB`;
		expect(unreadable({ ok: false, failure: 'tooLarge' }, true, 30000, node)).toEqual({
			kind: 'unknown',
			reason,
			detail: 'Answer too large',
		});
		expect(() => unreadable({ ok: false, failure: 'tooLarge' }, false, 30000, node)).toThrow(
			`The Trading Service's answer was too large: ${reason}`,
		);
	});
});

// Reading an answer's body within a deadline and a byte cap, over real Node.js streams. The
// deadlines are either far away (never reached) or already passed: nothing here depends on timing.

const far = () => new AttemptDeadline(Date.now() + 60_000);

/** A stream that has sent `chunks` and then nothing more (neither an end nor an error). */
function stalled(...chunks: Array<string | Uint8Array>): PassThrough {
	const stream = new PassThrough();
	for (const chunk of chunks) stream.write(chunk);
	return stream;
}

describe('readBody', () => {
	let deadline: AttemptDeadline;
	beforeEach(() => (deadline = far()));
	afterEach(() => deadline.cancel());

	it('reads a stream to its end as UTF-8, a character split across chunks included', async () => {
		const bytes = Buffer.from('{"coin":"€","n":1}', 'utf8');
		const euro = bytes.indexOf(0xe2);
		const stream = new PassThrough();
		const reading = readBody(stream, deadline);
		stream.write(bytes.subarray(0, euro + 1));
		stream.write(bytes.subarray(euro + 1, euro + 2));
		stream.end(bytes.subarray(euro + 2));
		await expect(reading).resolves.toEqual({ ok: true, text: '{"coin":"€","n":1}' });
	});

	it('takes bodies that arrived whole: nothing is "", a string as it is, bytes decoded', async () => {
		await expect(readBody(undefined, deadline)).resolves.toEqual({ ok: true, text: '' });
		await expect(readBody(null, deadline)).resolves.toEqual({ ok: true, text: '' });
		await expect(readBody('[1,2]', deadline)).resolves.toEqual({ ok: true, text: '[1,2]' });
		await expect(readBody(Buffer.from('{"a":"ü"}'), deadline)).resolves.toEqual({
			ok: true,
			text: '{"a":"ü"}',
		});
	});

	it('refuses a body over the byte cap, and stops reading the stream', async () => {
		const stream = stalled('0123456789', '0123456789');
		await expect(readBody(stream, deadline, 15)).resolves.toEqual({
			ok: false,
			failure: 'tooLarge',
		});
		expect(stream.destroyed).toBe(true);
		await expect(readBody('x'.repeat(16), deadline, 15)).resolves.toEqual({
			ok: false,
			failure: 'tooLarge',
		});
		await expect(readBody(new Uint8Array(16), deadline, 15)).resolves.toEqual({
			ok: false,
			failure: 'tooLarge',
		});
		await expect(readBody('x'.repeat(15), deadline, 15)).resolves.toEqual({
			ok: true,
			text: 'x'.repeat(15),
		});
	});

	it('counts a body that arrived whole as a string in UTF-8 bytes, as it counts streams and bytes', async () => {
		await expect(readBody('ééé', deadline, 4)).resolves.toEqual({ ok: false, failure: 'tooLarge' });
		await expect(readBody('ééé', deadline, 6)).resolves.toEqual({ ok: true, text: 'ééé' });
		await expect(readBody('😀😀', deadline, 7)).resolves.toEqual({
			ok: false,
			failure: 'tooLarge',
		});
		await expect(readBody('😀😀', deadline, 8)).resolves.toEqual({ ok: true, text: '😀😀' });
		await expect(readBody('abc', deadline, 3)).resolves.toEqual({ ok: true, text: 'abc' });
	});

	it('caps answers at 4 MiB by default', () => {
		expect(MAX_ANSWER_BYTES).toBe(4 * 1024 * 1024);
	});

	it('a stream that breaks: broken, with the error code, or ECONNRESET when it has none', async () => {
		const withCode = stalled('{"a"');
		const reading = readBody(withCode, deadline);
		withCode.destroy(Object.assign(new Error('pipe'), { code: 'EPIPE' }));
		await expect(reading).resolves.toEqual({ ok: false, failure: 'broken', code: 'EPIPE' });

		const withoutCode = stalled('{"a"');
		const second = readBody(withoutCode, deadline);
		withoutCode.destroy(new Error('gone'));
		await expect(second).resolves.toEqual({ ok: false, failure: 'broken', code: 'ECONNRESET' });
	});

	it('a stream closed before its end (the connection went away mid-answer): broken, ECONNRESET', async () => {
		const stream = stalled('{"a":');
		const reading = readBody(stream, deadline);
		stream.destroy();
		await expect(reading).resolves.toEqual({ ok: false, failure: 'broken', code: 'ECONNRESET' });
	});

	it('a deadline already passed ends the read of a stalled stream, and closes the stream', async () => {
		const passed = new AttemptDeadline(Date.now() - 1);
		const stream = stalled('{"a":');
		await expect(readBody(stream, passed)).resolves.toEqual({ ok: false, failure: 'deadline' });
		expect(stream.destroyed).toBe(true);
	});

	it('a cancelled deadline never ends a read: the stream is read to its end', async () => {
		const cancelled = new AttemptDeadline(Date.now());
		cancelled.cancel();
		const stream = new PassThrough();
		const reading = readBody(stream, cancelled);
		await new Promise((resolve) => setTimeout(resolve, 20));
		stream.end('[]');
		await expect(reading).resolves.toEqual({ ok: true, text: '[]' });
	});

	it('anything else that is not a stream is an unexpected body', async () => {
		await expect(readBody(42, deadline)).resolves.toEqual({
			ok: false,
			failure: 'broken',
			code: 'EUNEXPECTEDBODY',
		});
		await expect(readBody({ on: 'not a function' }, deadline)).resolves.toEqual({
			ok: false,
			failure: 'broken',
			code: 'EUNEXPECTEDBODY',
		});
	});
});

describe('discardBody', () => {
	it('closes a stream nobody reads, and leaves anything else alone', () => {
		const stream = stalled('unread');
		discardBody(stream);
		expect(stream.destroyed).toBe(true);
		expect(() => discardBody('text')).not.toThrow();
		expect(() => discardBody(undefined)).not.toThrow();
	});
});

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
