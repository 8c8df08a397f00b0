/**
 * Parameters of the futures endpoints, checked the sandbox's usual way: a missing required, empty
 * or malformed value, or a limit outside its documented range, is refused 0001 naming the field; an
 * unknown contract (a spot symbol included) 0201, as an unknown spot symbol is.
 */
import { CODES } from '../codes';
import { apiError, fieldError } from '../errors';
import { findContract, type Contract } from './contracts';

type Params = Map<string, string>;

/** The contract named by `symbol`: undefined when absent and not `required`. */
export function contractParam(p: Params, required: true): Contract;
export function contractParam(p: Params, required: false): Contract | undefined;
export function contractParam(p: Params, required: boolean): Contract | undefined;
export function contractParam(p: Params, required: boolean): Contract | undefined {
	const name = p.get('symbol');
	if (name === undefined) {
		if (required) throw fieldError('symbol');
		return undefined;
	}
	if (name === '') throw fieldError('symbol');
	const c = findContract(name);
	if (!c) throw apiError(CODES.instrumentNotFound, `'${name}' is not a listed contract`);
	return c;
}

/** `limit`: `dflt` when absent; 1 to `max`, else refused (never cut). */
export function limitParam(p: Params, dflt: number, max: number): number {
	const raw = p.get('limit');
	if (raw === undefined) return dflt;
	if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
		throw fieldError('limit', `1 to ${max}`);
	return Number(raw);
}

/** A millisecond time, or undefined when absent (required: refused). */
export function timeParam(p: Params, name: string, required = false): number | undefined {
	const v = p.get(name);
	if (v === undefined) {
		if (required) throw fieldError(name, 'millisecond timestamp');
		return undefined;
	}
	if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
	return Number(v);
}

/** startTime and endTime (each optional unless `required`), startTime not after endTime. */
export function timeRange(p: Params, required = false): { startTime?: number; endTime?: number } {
	const startTime = timeParam(p, 'startTime', required);
	const endTime = timeParam(p, 'endTime', required);
	if (startTime !== undefined && endTime !== undefined && startTime > endTime)
		throw fieldError('startTime', 'startTime must not be after endTime');
	return { startTime, endTime };
}

/** A numeric id (order, trade, funding record), as a BigInt; undefined when absent. */
export function idParam(p: Params, name: string): bigint | undefined {
	const v = p.get(name);
	if (v === undefined) return undefined;
	if (!/^\d{1,20}$/.test(v)) throw fieldError(name, 'numeric id');
	return BigInt(v);
}

/** One of `allowed`; `required` refuses absence. */
export function enumParam<T extends string>(
	p: Params,
	name: string,
	allowed: readonly T[],
	required: boolean,
): T | undefined {
	const v = p.get(name);
	if (v === undefined) {
		if (required) throw fieldError(name, allowed.join(' or '));
		return undefined;
	}
	if (!(allowed as readonly string[]).includes(v)) throw fieldError(name, allowed.join(' or '));
	return v as T;
}
