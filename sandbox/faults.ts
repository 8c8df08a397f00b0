/**
 * Fault kinds: when each acts (before processing, after processing, or inside an endpoint) and the
 * answers they send. The request pipeline in server.ts applies them.
 */
import { CODES, msgOf } from './codes';
import type { FaultKind, FaultRule } from './types';

/**
 * - dropBefore: the connection dies before anything is processed.
 * - before: answered without processing; nothing is applied.
 * - after: processed (a write is applied), then the answer is replaced, mangled or never sent.
 * - inline: processed normally; the endpoint shapes its own answer differently.
 */
export type FaultPhase = 'dropBefore' | 'before' | 'after' | 'inline';

const PHASES: Record<FaultKind, FaultPhase> = {
	http500: 'before',
	http502: 'before',
	http503: 'before',
	rateLimit: 'before',
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
};

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

const CREATE_PATHS = new Set(['/api/v1/spot/new/order', '/api/v1/spot/batchOrders']);
const CANCEL_PATHS = new Set(['/api/v1/spot/order', '/api/v1/spot/openOrders', '/api/v1/spot/cancelOrderByIds']);

/** The unknown-outcome code that fits the request: order creation timeout, cancel timeout, or a generic timeout. */
export function unknownCodeFor(method: string, path: string): { code: string; msg: string } {
	if (method === 'POST' && CREATE_PATHS.has(path)) return CODES.orderCreateTimeout;
	if (method === 'DELETE' && CANCEL_PATHS.has(path)) return CODES.orderCancelTimeout;
	return CODES.serverTimeout;
}

const BAD_GATEWAY_PAGE =
	'<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

function errorAnswer(status: number, code: string, msg: string, headers: Record<string, string> = {}): FaultAnswer {
	return { status, value: { code, msg }, headers, code };
}

/** The answer of a `before` or `after` fault that replaces the endpoint's answer (not for drops). */
export function faultAnswer(f: ActiveFault, method: string, path: string): FaultAnswer {
	switch (f.kind) {
		case 'http500':
		case 'http500After':
			return errorAnswer(500, CODES.unknownError.code, CODES.unknownError.msg);
		case 'http502':
		case 'http502After':
			return { status: 502, text: BAD_GATEWAY_PAGE, headers: { 'Content-Type': 'text/html' } };
		case 'http503':
		case 'http503After':
			return errorAnswer(503, CODES.internalError.code, `${CODES.internalError.msg} (service unavailable; try again later)`);
		case 'rateLimit':
			return errorAnswer(429, CODES.rateLimited.code, CODES.rateLimited.msg, {
				'Retry-After': String(f.rule.retryAfterSeconds ?? 1),
			});
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
