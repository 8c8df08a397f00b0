import { sleep } from 'n8n-workflow';

/**
 * Reading an answer with a deadline and a byte cap. n8n's request helper gives a node no way to
 * bound an attempt: `httpRequestWithAuthentication` replaces the node's `abortSignal` with the
 * execution's cancel signal, its `timeout` is the socket's idle timeout (a server sending one byte
 * every few seconds never trips it), and it sets no size cap. So the transport asks for the body
 * as a stream (`encoding: 'stream'`) and reads it here: until the deadline, and at most `maxBytes`.
 */

/** Most bytes of one answer (after decompression): far above a full history page (~150 kB). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The part of a Node.js readable stream this file uses. */
interface ReadableBody {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

export type BodyRead =
	| { ok: true; text: string }
	| { ok: false; failure: 'deadline' | 'tooLarge' }
	| { ok: false; failure: 'broken'; code: string };

function isReadable(body: unknown): body is ReadableBody {
	return (
		body !== null &&
		typeof body === 'object' &&
		typeof (body as ReadableBody).on === 'function' &&
		typeof (body as ReadableBody).destroy === 'function'
	);
}

/** Stops reading a body nobody needs, so its connection is not kept open. */
export function discardBody(body: unknown): void {
	if (isReadable(body)) body.destroy();
}

function errorCode(error: unknown): string {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === 'string' && code !== '' ? code : 'ECONNRESET';
}

/** The reason an attempt's deadline timer is released: the attempt is over. */
const ATTEMPT_OVER = 'attempt over';

/**
 * A timer that ends at `deadline` (a `Date.now()` value), for racing each phase of one attempt
 * against. `cancel()` releases it once the attempt is over, so no timer outlives the attempt.
 */
export class AttemptDeadline {
	private readonly controller = new AbortController();
	/** Resolves with 'deadline' when the deadline passes; never rejects. */
	readonly passed: Promise<'deadline'>;

	constructor(readonly deadline: number) {
		this.passed = sleep(Math.max(0, deadline - Date.now()), this.controller.signal).then(
			() => 'deadline' as const,
			// Cancelled: this attempt is over, nothing waits on the race any more.
			() => new Promise<'deadline'>(() => undefined),
		);
	}

	cancel(): void {
		// With a reason given, abort() does not build a DOMException (and its stack) per attempt.
		this.controller.abort(ATTEMPT_OVER);
	}
}

/**
 * A string's size in UTF-8 bytes, the unit of the cap. A UTF-16 unit is 1 to 3 bytes (a
 * surrogate pair, 2 units, is 4), so only a string between `cap / 3` and `cap` units is encoded.
 */
function utf8Length(text: string, cap: number): number {
	if (text.length > cap || text.length * 3 <= cap) return text.length;
	return new TextEncoder().encode(text).byteLength;
}

/**
 * Reads an answer's body as UTF-8 text, racing `deadline`. A stream past the deadline or over
 * `maxBytes` is destroyed, which closes its connection (the server sees the client leave).
 * Bodies that already arrived whole (a string or bytes, as some hosts hand them) are taken as they are.
 */
export async function readBody(
	body: unknown,
	deadline: AttemptDeadline,
	maxBytes = MAX_ANSWER_BYTES,
): Promise<BodyRead> {
	if (body === undefined || body === null) return { ok: true, text: '' };
	if (typeof body === 'string')
		return utf8Length(body, maxBytes) > maxBytes
			? { ok: false, failure: 'tooLarge' }
			: { ok: true, text: body };
	if (body instanceof Uint8Array) {
		return body.byteLength > maxBytes
			? { ok: false, failure: 'tooLarge' }
			: { ok: true, text: new TextDecoder().decode(body) };
	}
	if (!isReadable(body)) return { ok: false, failure: 'broken', code: 'EUNEXPECTEDBODY' };

	const stream = body;
	const reading = new Promise<BodyRead>((resolve) => {
		const decoder = new TextDecoder();
		let text = '';
		let bytes = 0;
		let done = false;
		const finish = (result: BodyRead) => {
			if (done) return;
			done = true;
			resolve(result);
		};
		stream.on('data', (chunk: unknown) => {
			if (done) return;
			const bytesOfChunk =
				typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
			bytes += bytesOfChunk.byteLength;
			if (bytes > maxBytes) {
				finish({ ok: false, failure: 'tooLarge' });
				return;
			}
			text += decoder.decode(bytesOfChunk, { stream: true });
		});
		stream.on('end', () => finish({ ok: true, text: text + decoder.decode() }));
		stream.on('error', (error: unknown) =>
			finish({ ok: false, failure: 'broken', code: errorCode(error) }),
		);
		// Closed without 'end': the connection went away mid-answer.
		stream.on('close', () => finish({ ok: false, failure: 'broken', code: 'ECONNRESET' }));
	});
	const result = await Promise.race([
		reading,
		deadline.passed.then((): BodyRead => ({ ok: false, failure: 'deadline' })),
	]);
	if (!result.ok) stream.destroy();
	return result;
}
