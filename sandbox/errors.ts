/**
 * Error answers and the validation helpers shared by the engine and the order book.
 */
import { CODES, intCode, type CodeInfo } from './codes';
import * as D from './decimal';
import { JsonNumber, type JsonValue } from './json';

/** An API error: HTTP status and top-level string code. */
export class ApiError extends Error {
	constructor(
		public readonly status: number,
		public readonly code: string,
		msg: string,
	) {
		super(msg);
	}
}

/** An error answer with a code of the family's table; `detail` is appended to its message. */
export function apiError(info: CodeInfo, detail?: string): ApiError {
	return new ApiError(info.status, info.code, detail ? `${info.msg} (${detail})` : info.msg);
}

export function fieldError(name: string, detail?: string): ApiError {
	return new ApiError(
		400,
		CODES.invalidField.code,
		`Required field '${name}' missing or invalid${detail ? ` (${detail})` : ''}`,
	);
}

export type OrderFailKind = 'field' | 'symbol' | 'duplicate' | 'insufficient' | 'rule';

/** Per-order failure; mapped to a string code (single endpoint) or an integer code (batch). */
export class OrderFail extends Error {
	constructor(
		public readonly kind: OrderFailKind,
		msg: string,
		/** The field at fault (named in the batch message). */
		public readonly field: string,
		/** The code of a 'rule' failure (a symbol rule the order breaks). */
		public readonly ruleCode?: CodeInfo,
	) {
		super(msg);
	}
	/** Message of a batch result entry: "Create order failed: <reason naming the field>". */
	get batchMessage(): string {
		return `Create order failed: ${this.message}${this.message.includes(`'${this.field}'`) ? '' : ` (field '${this.field}')`}`;
	}
	get stringCode(): string {
		if (this.ruleCode) return this.ruleCode.code;
		return {
			field: CODES.invalidField.code,
			symbol: CODES.instrumentNotFound.code,
			duplicate: CODES.duplicateOrder.code,
			insufficient: CODES.insufficientAsset.code,
			rule: CODES.invalidField.code,
		}[this.kind];
	}
	get intCode(): number {
		return intCode(this.stringCode);
	}
	toApiError(): ApiError {
		return new ApiError(400, this.stringCode, this.message);
	}
}

export function orderFieldFail(name: string, detail?: string): OrderFail {
	return new OrderFail(
		'field',
		`Required field '${name}' missing or invalid${detail ? ` (${detail})` : ''}`,
		name,
	);
}

/** Validate a positive plain decimal (string or JSON number literal) and return it canonical; null when absent. */
export function positiveDecimal(
	v: JsonValue | undefined,
	name: string,
	fail: (n: string, d?: string) => Error,
): string | null {
	if (v === undefined || v === null) return null;
	let s: string;
	if (typeof v === 'string') s = v;
	else if (v instanceof JsonNumber) s = v.raw;
	else throw fail(name, 'must be a decimal number or string');
	if (!D.PLAIN_DECIMAL_RE.test(s))
		throw fail(name, 'must be a positive plain decimal, no sign or exponent');
	const frac = s.split('.')[1];
	if (frac && frac.length > D.MAX_SCALE) throw fail(name, `at most ${D.MAX_SCALE} decimal places`);
	const d = D.parseDec(s)!;
	if (!D.isPositive(d)) throw fail(name, 'must be greater than zero');
	return D.fmt(d);
}
