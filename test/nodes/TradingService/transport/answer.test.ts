import type { INode } from 'n8n-workflow';

import { classifyResponse } from '../../../../nodes/TradingService/transport/answer';
import { unreadable } from '../../../../nodes/TradingService/transport/errors';
import { MAX_ANSWER_BYTES } from '../../../../nodes/TradingService/transport/answer';
import { ENDPOINTS } from '../../../../nodes/TradingService/transport/endpoints';
import { node as fixedNode } from '../../../support/fixedNode';

// What one answer means, against fixed answers: status, headers and body text in, the body or
// the failure out. (The same through n8n's request helper against the sandbox: http.test.ts.)

const node: INode = { ...fixedNode, id: 'answer' };

const read = ENDPOINTS.queryOrder;
const batch = ENDPOINTS.batchOrders;

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
