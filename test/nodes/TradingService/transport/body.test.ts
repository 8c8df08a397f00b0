import { PassThrough } from 'node:stream';

import {
	AttemptDeadline,
	MAX_ANSWER_BYTES,
	discardBody,
	readBody,
} from '../../../../nodes/TradingService/transport/answer';

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
