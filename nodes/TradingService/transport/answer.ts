import { sleep, type IN8nHttpFullResponse } from 'n8n-workflow';

import { ERROR_CODES, UNKNOWN_OUTCOME_CODES } from '../constants';
import type { Endpoint } from './endpoints';
import { MAX_JSON_DEPTH, NO_FIELDS, parseJsonExactly } from './jsonParser';
import type { ServiceRejection } from './rejections';
import { TEXT_FIELDS } from './textFields';
import type { AttemptFailure, BodyRead } from './types';

/**
 * Reading an answer (docs/transport.md "Reading the answer"): its body within the attempt's
 * deadline and a byte cap, its JSON with every digit kept, and what it means in the terms that
 * decide whether another attempt is safe. No HTTP of its own: request.ts sends.
 */

/** Whether a code is numeric zero in any spelling the family uses: 0, "0", "0000". */
export function isZeroCode(code: unknown): boolean {
	return (
		(typeof code === 'number' && code === 0) ||
		(typeof code === 'string' && /^\s*[+-]?0+\s*$/.test(code))
	);
}

/** Whether two codes are the same number ("0401" and 401, "-1141" and -1141). */
export function sameCode(code: unknown, other: string): boolean {
	if (typeof code !== 'number' && typeof code !== 'string') return false;
	const text = String(code).trim();
	return /^[+-]?\d+$/.test(text) && Number(text) === Number(other);
}

/** Whether a code says the request may have been executed (timeouts, "execution status unknown"). */
export function isUnknownOutcomeCode(code: unknown): boolean {
	return UNKNOWN_OUTCOME_CODES.some((unknown) => sameCode(code, unknown));
}

/**
 * A number literal a double may not hold exactly: 16 digits or more, or an exponent. Text inside a
 * string may match too, which only sends that answer to the exact parser.
 */
export const MAYBE_INEXACT_NUMBER = /(?:^|[:,[])\s*-?(?:\d{16}|[\d.]{17}|[\d.]+[eE])/;

/**
 * Whether a value JSON.parse built is what the exact parser would build: no deeper than
 * MAX_JSON_DEPTH, and no number under a key of `textFields` (whose literal JSON.parse loses).
 */
function fastParseHolds(value: unknown, textFields: ReadonlySet<string>, depth: number): boolean {
	if (value === null || typeof value !== 'object') return true;
	if (depth >= MAX_JSON_DEPTH) return false;
	if (Array.isArray(value)) {
		for (const element of value) if (!fastParseHolds(element, textFields, depth + 1)) return false;
		return true;
	}
	for (const key of Object.keys(value)) {
		const field = (value as Record<string, unknown>)[key];
		if (typeof field === 'number' && textFields.has(key)) return false;
		if (!fastParseHolds(field, textFields, depth + 1)) return false;
	}
	return true;
}

/**
 * Parses JSON text like JSON.parse, except that a number a double cannot hold (the service's IDs
 * have up to 20 digits, its amounts up to 18 decimals) comes back as its literal text, and so does
 * any number under a key in `textFields`. JSON.parse is several times faster than the exact parser
 * (jsonParser.ts), so it is tried first and its value kept where it is exact. Throws
 * JsonSyntaxError for text that is not exactly one JSON value.
 */
export function parseJsonKeepingDigits(
	text: string,
	textFields: ReadonlySet<string> = NO_FIELDS,
): unknown {
	if (!MAYBE_INEXACT_NUMBER.test(text)) {
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			value = undefined;
		}
		if (value !== undefined && fastParseHolds(value, textFields, 0)) return value;
	}
	return parseJsonExactly(text, textFields);
}

/** Most bytes of one answer (after decompression): far above a full history page (~150 kB). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The part of a Node.js readable stream this file uses: n8n's helper cannot bound an attempt itself. */
interface ReadableBody {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

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
		this.controller.abort('attempt over');
	}
}

/** A string's size in UTF-8 bytes, the cap's unit: 1 to 3 per UTF-16 unit, so few are encoded. */
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

/** The family's code for an IP ban (HTTP 418), used when the answer carries none. */
const IP_BAN_CODE = '-3145';

function parseRetryAfter(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = headers?.['retry-after'];
	const text = Array.isArray(value) ? value[0] : value;
	if (text === undefined) return undefined;
	const seconds = Number(text);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function asRejection(
	body: unknown,
	httpStatus: number,
	codesPerEntry: boolean,
): ServiceRejection | undefined {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const { code, msg } = body as { code?: unknown; msg?: unknown };
	if (code === undefined || code === null) return undefined;
	const codeText = String(code);
	// Success is numeric zero in any spelling the family uses (0, "0", "0000").
	if (isZeroCode(code) || codeText === '200') return undefined;
	// A 2xx answer with a code per entry is the caller's to read, whatever its top-level code:
	// some entries may have been executed.
	const answered = httpStatus >= 200 && httpStatus < 300;
	if (codesPerEntry && answered && Array.isArray((body as { result?: unknown }).result))
		return undefined;
	return { code: codeText, msg: typeof msg === 'string' ? msg : '', httpStatus };
}

/**
 * Classifies an answer: the parsed body on success, the failure otherwise. A 2xx answer that is
 * not JSON is unknown: something answered, but nobody can tell what the service did.
 */
export function classifyResponse(
	endpoint: Endpoint,
	status: number,
	headers: IN8nHttpFullResponse['headers'],
	text: string,
): { body: unknown } | AttemptFailure {
	let body: unknown = text;
	let isJson = true;
	try {
		body = parseJsonKeepingDigits(text, endpoint.textFields ?? TEXT_FIELDS);
	} catch {
		isJson = false;
	}
	const rejection = asRejection(body, status, endpoint.codesPerEntry === true);
	if (status === 418) {
		// An IP ban in this API family: retrying only prolongs it.
		const ban: ServiceRejection & { retryAfterMs?: number } = {
			code: rejection?.code ?? IP_BAN_CODE,
			msg: rejection?.msg ?? 'IP banned',
			httpStatus: status,
			retryAfterMs: parseRetryAfter(headers),
		};
		return { kind: 'rejected', rejection: ban };
	}
	// The UAE documentation's error table gives the rate-limit code 0003 with HTTP 400: the same
	// refusal as a 429, nothing processed, the key suspended.
	if (
		status === 429 ||
		(status === 400 && rejection !== undefined && sameCode(rejection.code, ERROR_CODES.rateLimited))
	) {
		return {
			kind: 'rateLimited',
			retryAfterMs: parseRetryAfter(headers),
			rejection: rejection ?? {
				code: ERROR_CODES.rateLimited,
				msg: 'Rate limit exceeded',
				httpStatus: status,
			},
		};
	}
	if (status >= 500) {
		return {
			kind: 'unknown',
			reason: `the service failed with HTTP ${status}`,
			detail: `HTTP ${status}`,
		};
	}
	// A 404 means the Base URL is wrong, whatever the body says.
	if (rejection && status !== 404) return { kind: 'rejected', rejection };
	if (status >= 200 && status < 300) {
		return isJson
			? { body }
			: {
					kind: 'unknown',
					reason: 'the service answered with something that is not JSON',
					detail: 'Unreadable answer',
				};
	}
	return {
		kind: 'http',
		status,
		reason: `HTTP ${status}${status === 404 ? ': the path does not exist at this Base URL' : ''}`,
	};
}
