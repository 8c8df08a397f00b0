/**
 * Fault kinds: when each acts (before processing, after processing, or inside an endpoint) and the
 * answers they send. The request pipeline (pipeline.ts) applies them.
 */
import { CODES, msgOf } from './codes';
import type { FaultKind, FaultRule } from './types';

/**
 * - dropBefore: the connection dies before anything is processed.
 * - before: answered without processing; nothing is applied.
 * - after: processed (a write is applied), then the answer is replaced, mangled or never sent.
 * - late: answered at once without processing; the request is processed later (pipeline.ts).
 * - inline: processed normally; the endpoint shapes its own answer differently.
 */
export type FaultPhase = 'dropBefore' | 'before' | 'after' | 'late' | 'inline';

const PHASES: Record<FaultKind, FaultPhase> = {
	http500: 'before',
	http502: 'before',
	http503: 'before',
	rateLimit: 'before',
	rateLimitSuspension: 'before',
	unknownBefore: 'before',
	dropBefore: 'dropBefore',
	dropAfter: 'after',
	http500After: 'after',
	http502After: 'after',
	http503After: 'after',
	unknownAfter: 'after',
	batchReorder: 'inline',
	batchCode0000: 'inline',
	batchTopCodeNonZero: 'inline',
	batchNullEntry: 'inline',
	batchEntryNoCode: 'inline',
	redirectSameHost: 'before',
	redirectOtherHost: 'before',
	redirectLoop: 'before',
	ipBan: 'before',
	transferSuccessFalse: 'before',
	dripFeed: 'after',
	answerHtml: 'after',
	answerNull: 'after',
	answerEmptyString: 'after',
	answerEmptyBody: 'after',
	answerTrue: 'after',
	answerTruncated: 'after',
	answerBadGzip: 'after',
	numericIds: 'inline',
	numericDecimals: 'inline',
	historyOversize: 'inline',
	historyOldestFirst: 'inline',
	historyUnordered: 'inline',
	answer200Code: 'before',
	createLate: 'late',
	cancelByIdsOtherKey: 'inline',
	cancelByIdsEntryCode: 'inline',
};

/** After-faults that send the request's real answer, wrongly (or not at all), instead of replacing it. */
export const SEND_FAULTS: ReadonlySet<FaultKind> = new Set<FaultKind>([
	'dropAfter',
	'dripFeed',
	'answerTruncated',
	'answerBadGzip',
]);

export const MALFORMED_KINDS: FaultKind[] = [
	'answerHtml',
	'answerNull',
	'answerEmptyString',
	'answerEmptyBody',
	'answerTrue',
	'answerTruncated',
	'answerBadGzip',
];

export const REDIRECT_KINDS: FaultKind[] = [
	'redirectSameHost',
	'redirectOtherHost',
	'redirectLoop',
];

/** The sandbox path of redirectLoop: it redirects to itself, hop after hop. */
export const REDIRECT_LOOP_PATH = '/__sandbox/redirect-loop';

export const FAULT_KINDS = Object.keys(PHASES) as FaultKind[];

export function phaseOf(kind: FaultKind): FaultPhase {
	return PHASES[kind];
}

/** A fault picked for one request. */
export interface ActiveFault {
	kind: FaultKind;
	rule: FaultRule;
}

export interface FaultAnswer {
	status: number;
	/** A JSON value, or raw text with its content type. */
	value?: unknown;
	text?: string;
	headers: Record<string, string>;
	code?: string;
}

const CREATE_PATHS = new Set([
	'/api/v1/spot/new/order',
	'/api/v1/spot/batchOrders',
	'/api/v1.1/spot/order',
	'/api/v1.1/spot/batchOrders',
	'/api/v2/futures/order',
	'/api/v2/futures/batchOrders',
]);
const CANCEL_PATHS = new Set([
	'/api/v1/spot/order',
	'/api/v1/spot/openOrders',
	'/api/v1/spot/cancelAllOpenOrders',
	'/api/v1/spot/cancelOrderByIds',
	'/api/v2/futures/order',
	'/api/v2/futures/cancelOrders',
]);

/** The unknown-outcome code that fits the request: order creation timeout, cancel timeout, or a generic timeout. */
export function unknownCodeFor(method: string, path: string): { code: string; msg: string } {
	if (method === 'POST' && CREATE_PATHS.has(path)) return CODES.orderCreateTimeout;
	if (method === 'DELETE' && CANCEL_PATHS.has(path)) return CODES.orderCancelTimeout;
	return CODES.serverTimeout;
}

const BAD_GATEWAY_PAGE =
	'<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

function errorAnswer(
	status: number,
	code: string,
	msg: string,
	headers: Record<string, string> = {},
): FaultAnswer {
	return { status, value: { code, msg }, headers, code };
}

/** Where a redirect fault points. */
export interface RedirectTargets {
	/** The sandbox's own base URL. */
	self: string;
	/** The other host's base URL. */
	other: string;
	/** Path plus query of the request, e.g. '/api/v1/x?a=1'. */
	url: string;
}

const MAINTENANCE_PAGE =
	'<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We will be back soon</h1></body></html>';

/** Default real milliseconds before a createLate request is processed. */
export const CREATE_LATE_DEFAULT_MS = 8000;

/**
 * The answer of a `before`, `after` or `late` fault that replaces the endpoint's answer (not for
 * SEND_FAULTS). `rateLimitStatus`: the status of a request-rate refusal (behaviour
 * rateLimitStatus), which rateLimitSuspension answers with.
 */
export function faultAnswer(
	f: ActiveFault,
	method: string,
	path: string,
	targets: RedirectTargets,
	rateLimitStatus: 429 | 400 = 429,
): FaultAnswer {
	const redirect = (location: string): FaultAnswer => ({
		status: f.rule.redirectStatus ?? 307,
		text: '',
		headers: { Location: location },
	});
	switch (f.kind) {
		case 'redirectSameHost':
			if (f.rule.location !== undefined) return redirect(f.rule.location);
			return redirect(
				f.rule.redirectStatus === 303
					? `${targets.self}/api/v1/time`
					: `${targets.self}${targets.url}`,
			);
		case 'redirectOtherHost':
			return redirect(`${targets.other}${targets.url}`);
		case 'redirectLoop':
			return redirect(
				`${targets.self}${REDIRECT_LOOP_PATH}?status=${f.rule.redirectStatus ?? 307}&hop=1`,
			);
		case 'ipBan': {
			const seconds = f.rule.retryAfterSeconds ?? 120;
			return errorAnswer(
				418,
				CODES.ipBanned.code,
				`${CODES.ipBanned.msg} (IP banned for ${seconds} s)`,
				{
					'Retry-After': String(seconds),
				},
			);
		}
		case 'transferSuccessFalse':
			return { status: 200, value: { success: false }, headers: {} };
		case 'answerHtml':
			return {
				status: 200,
				text: MAINTENANCE_PAGE,
				headers: { 'Content-Type': 'text/html; charset=utf-8' },
			};
		case 'answerNull':
			return { status: 200, text: 'null', headers: { 'Content-Type': 'application/json' } };
		case 'answerEmptyString':
			return { status: 200, text: '""', headers: { 'Content-Type': 'application/json' } };
		case 'answerEmptyBody':
			return { status: 200, text: '', headers: { 'Content-Type': 'application/json' } };
		case 'answerTrue':
			return { status: 200, text: 'true', headers: { 'Content-Type': 'application/json' } };
		case 'http500':
		case 'http500After':
			return errorAnswer(500, CODES.unknownError.code, CODES.unknownError.msg);
		case 'http502':
		case 'http502After':
			return { status: 502, text: BAD_GATEWAY_PAGE, headers: { 'Content-Type': 'text/html' } };
		case 'http503':
		case 'http503After':
			return errorAnswer(
				503,
				CODES.internalError.code,
				`${CODES.internalError.msg} (service unavailable; try again later)`,
			);
		case 'rateLimit':
			return errorAnswer(429, CODES.rateLimited.code, CODES.rateLimited.msg, {
				'Retry-After': String(f.rule.retryAfterSeconds ?? 1),
			});
		case 'rateLimitSuspension':
			// The request-rate limiter's refusal exactly: no Retry-After (the pipeline starts the
			// suspension of the request's key and class).
			return errorAnswer(rateLimitStatus, CODES.rateLimited.code, CODES.rateLimited.msg);
		case 'answer200Code': {
			// an error code under HTTP 200, in the shape of a cancel-by-ids answer
			const code = f.rule.code ?? CODES.orderCancelTimeout.code;
			const msg = msgOf(code) ?? CODES.executionUnknown.msg;
			return { status: 200, value: { code, msg, result: [] }, headers: {}, code };
		}
		case 'createLate':
			return errorAnswer(400, CODES.orderCreateTimeout.code, CODES.orderCreateTimeout.msg);
		case 'unknownBefore':
		case 'unknownAfter': {
			const c = unknownCodeFor(method, path);
			const code = f.rule.code ?? c.code;
			return errorAnswer(f.rule.status ?? 400, code, msgOf(code) ?? CODES.executionUnknown.msg);
		}
		default:
			throw new Error(`fault ${f.kind} has no answer of its own`);
	}
}
