import { sleep, type IN8nHttpFullResponse } from 'n8n-workflow';

import { ERROR_CODES, UNKNOWN_OUTCOME_CODES } from '../constants';
import { MAX_JSON_DEPTH, NO_FIELDS, parseJsonExactly } from './jsonParser';
import type { ServiceRejection } from './rejections';
import { TEXT_FIELDS } from './textFields';
import type { AnswerShape, AttemptFailure, BodyRead, Endpoint, FieldShape } from './types';

/**
 * What came back (docs/transport.md "Reading the answer"): the body within the attempt's deadline
 * and a byte cap, its JSON with every digit kept, what it means for another attempt, and whether a
 * 2xx answer has its endpoint's declared shape. No HTTP of its own: request.ts sends.
 */

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const FIELD_HOLDS: Record<FieldShape, (value: unknown) => boolean> = {
	present: () => true,
	id: (value) => typeof value === 'string' || typeof value === 'number',
	string: (value) => typeof value === 'string',
	text: (value) => typeof value === 'string' && value !== '',
	digits: (value) => /^\d+$/.test(String(value)),
	boolean: (value) => typeof value === 'boolean',
	list: Array.isArray,
	objects: (value) => Array.isArray(value) && value.every(isObject),
	listOrNull: (value) => value === null || Array.isArray(value),
};

function hasFields(entry: unknown, has: AnswerShape['has']): boolean {
	if (!isObject(entry)) return false;
	return Object.entries(has ?? {}).every(
		([key, shape]) => key in entry && FIELD_HOLDS[shape](entry[key]),
	);
}

/** What is wrong with a 2xx answer against its endpoint's shape; undefined when usable. */
export function answerProblem(shape: AnswerShape | undefined, body: unknown): string | undefined {
	if (shape === undefined) return undefined;
	const usable =
		shape.is === 'object'
			? hasFields(body, shape.has)
			: Array.isArray(body) &&
				body.every((entry) =>
					shape.is === 'rows' ? Array.isArray(entry) : hasFields(entry, shape.has),
				);
	return usable ? undefined : shape.otherwise;
}

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

/** Whether a code says the request may have been executed ("execution status unknown"). */
export function isUnknownOutcomeCode(code: unknown): boolean {
	return UNKNOWN_OUTCOME_CODES.some((unknown) => sameCode(code, unknown));
}

/**
 * A number literal a double may not hold exactly: 16 digits or more, or an exponent. Text inside a
 * string may match too, which only sends that answer to the exact parser.
 */
export const MAYBE_INEXACT_NUMBER = /(?:^|[:,[])\s*-?(?:\d{16}|[\d.]{17}|[\d.]+[eE])/;

/** Whether JSON.parse built what the exact parser would: not too deep, no number in a text field. */
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
 * JSON.parse, except that a number a double cannot hold (IDs of 20 digits, amounts of 18 decimals)
 * or under a key in `textFields` comes back as its literal text. JSON.parse is tried first, being
 * faster than the exact parser (jsonParser.ts), and kept where exact. Throws JsonSyntaxError.
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

/** The part of a Node.js readable stream used here. */
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

/** A timer ending at `deadline` (`Date.now()`), raced by each phase of an attempt; dies with it. */
export class AttemptDeadline {
	private readonly controller = new AbortController();
	/** Never rejects. */
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
 * An answer's body as UTF-8 text, racing `deadline`. A stream past it or over `maxBytes` is
 * destroyed, which closes its connection. A body that arrived whole (some hosts) is taken as it is.
 */
export async function readBody(
	body: unknown,
	deadline: AttemptDeadline,
	maxBytes = MAX_ANSWER_BYTES,
): Promise<BodyRead> {
	if (body === undefined || body === null) return { ok: true, text: '' };
	if (typeof body === 'string' || body instanceof Uint8Array) {
		const whole = typeof body === 'string';
		if ((whole ? utf8Length(body, maxBytes) : body.byteLength) > maxBytes)
			return { ok: false, failure: 'tooLarge' };
		return { ok: true, text: whole ? body : new TextDecoder().decode(body) };
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
		stream.on('error', (error: unknown) => {
			const code = (error as { code?: unknown } | null)?.code;
			const known = typeof code === 'string' && code !== '';
			finish({ ok: false, failure: 'broken', code: known ? code : 'ECONNRESET' });
		});
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
	if (!isObject(body)) return undefined;
	const { code, msg } = body;
	if (code === undefined || code === null) return undefined;
	const codeText = String(code);
	if (isZeroCode(code) || codeText === '200') return undefined;
	// A 2xx answer with a code per entry is the caller's to read, whatever its top-level code:
	// some entries may have been executed.
	const answered = httpStatus >= 200 && httpStatus < 300;
	if (codesPerEntry && answered && Array.isArray(body.result)) return undefined;
	return { code: codeText, msg: typeof msg === 'string' ? msg : '', httpStatus };
}

/** The parsed body, or the failure. A 2xx answer that is not JSON is unknown: what was done? */
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
		// An IP ban: retrying only prolongs it.
		const ban: ServiceRejection = {
			code: rejection?.code ?? IP_BAN_CODE,
			msg: rejection?.msg ?? 'IP banned',
			httpStatus: status,
			retryAfterMs: parseRetryAfter(headers),
		};
		return { kind: 'rejected', rejection: ban };
	}
	// The UAE documentation's error table gives the rate-limit code 0003 with HTTP 400: the same
	// refusal as a 429, nothing processed, the key suspended.
	const rateLimited = ERROR_CODES.rateLimited;
	if (status === 429 || (status === 400 && sameCode(rejection?.code, rateLimited))) {
		const said = rejection ?? { code: rateLimited, msg: 'Rate limit exceeded', httpStatus: status };
		return { kind: 'rateLimited', retryAfterMs: parseRetryAfter(headers), rejection: said };
	}
	const failed = `HTTP ${status}`;
	if (status >= 500)
		return { kind: 'unknown', reason: `the service failed with ${failed}`, detail: failed };
	// A 404 means the Base URL is wrong, whatever the body says.
	if (rejection && status !== 404) return { kind: 'rejected', rejection };
	if (status >= 200 && status < 300) {
		if (isJson) return { body };
		const reason = 'the service answered with something that is not JSON';
		return { kind: 'unknown', reason, detail: 'Unreadable answer' };
	}
	return {
		kind: 'http',
		status,
		reason: `HTTP ${status}${status === 404 ? ': the path does not exist at this Base URL' : ''}`,
	};
}
