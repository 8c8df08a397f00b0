/**
 * A strict JSON parser that keeps number literals as their raw text, so that a batch order
 * quantity sent as the JSON number 0.00000001 is read as "0.00000001" (not 1e-8), numbers too
 * long for a double stay exact, and exponent notation can be told apart and rejected.
 */

export class JsonNumber {
	constructor(public readonly raw: string) {}
}

export type JsonValue =
	| null
	| boolean
	| string
	| JsonNumber
	| JsonValue[]
	| { [key: string]: JsonValue };

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseJson(text: string): JsonValue {
	let i = 0;
	const fail = (what: string): never => {
		throw new SyntaxError(`Invalid JSON at ${i}: ${what}`);
	};
	const ws = () => {
		while (i < text.length) {
			const c = text.charCodeAt(i);
			if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
			else break;
		}
	};
	const str = (): string => {
		// text[i] === '"'
		i++;
		let out = '';
		for (;;) {
			if (i >= text.length) fail('unterminated string');
			const c = text[i];
			if (c === '"') {
				i++;
				return out;
			}
			if (c === '\\') {
				const e = text[i + 1];
				i += 2;
				switch (e) {
					case '"':
						out += '"';
						break;
					case '\\':
						out += '\\';
						break;
					case '/':
						out += '/';
						break;
					case 'b':
						out += '\b';
						break;
					case 'f':
						out += '\f';
						break;
					case 'n':
						out += '\n';
						break;
					case 'r':
						out += '\r';
						break;
					case 't':
						out += '\t';
						break;
					case 'u': {
						const hex = text.slice(i, i + 4);
						if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
						out += String.fromCharCode(parseInt(hex, 16));
						i += 4;
						break;
					}
					default:
						fail('bad escape');
				}
				continue;
			}
			if (c.charCodeAt(0) < 0x20) fail('control character in string');
			out += c;
			i++;
		}
	};
	const value = (depth: number): JsonValue => {
		if (depth > 64) fail('nesting too deep');
		ws();
		const c = text[i];
		if (c === '{') {
			i++;
			const obj: { [key: string]: JsonValue } = Object.create(null) as { [key: string]: JsonValue };
			ws();
			if (text[i] === '}') {
				i++;
				return obj;
			}
			for (;;) {
				ws();
				if (text[i] !== '"') fail('expected key');
				const k = str();
				ws();
				if (text[i] !== ':') fail("expected ':'");
				i++;
				obj[k] = value(depth + 1);
				ws();
				if (text[i] === ',') {
					i++;
					continue;
				}
				if (text[i] === '}') {
					i++;
					return obj;
				}
				fail("expected ',' or '}'");
			}
		}
		if (c === '[') {
			i++;
			const arr: JsonValue[] = [];
			ws();
			if (text[i] === ']') {
				i++;
				return arr;
			}
			for (;;) {
				arr.push(value(depth + 1));
				ws();
				if (text[i] === ',') {
					i++;
					continue;
				}
				if (text[i] === ']') {
					i++;
					return arr;
				}
				fail("expected ',' or ']'");
			}
		}
		if (c === '"') return str();
		if (text.startsWith('true', i)) {
			i += 4;
			return true;
		}
		if (text.startsWith('false', i)) {
			i += 5;
			return false;
		}
		if (text.startsWith('null', i)) {
			i += 4;
			return null;
		}
		NUMBER_RE.lastIndex = i;
		const m = NUMBER_RE.exec(text);
		if (m && m[0].length > 0) {
			i += m[0].length;
			return new JsonNumber(m[0]);
		}
		return fail('unexpected token');
	};
	const v = value(0);
	ws();
	if (i !== text.length) fail('trailing characters');
	return v;
}

/** Keys whose digit-string values the numericIds fault writes as bare JSON integers. */
export const NUMERIC_ID_KEYS: ReadonlySet<string> = new Set([
	'id',
	'orderId',
	'accountId',
	'lastOrderId',
	'userId',
]);

/** Keys whose decimal-string values the numericDecimals fault writes as bare JSON numbers. */
export const NUMERIC_DECIMAL_KEYS: ReadonlySet<string> = new Set([
	'price',
	'origQty',
	'executedQty',
	'cummulativeQuoteQty',
	'cumulativeQuoteQty',
	'avgPrice',
	'reqAmount',
	'stopPrice',
	'icebergQty',
	'feeAmount',
	'sumFeeAmount',
	'free',
	'locked',
	'total',
	'change',
]);

const RAW_MARK = '\u0001raw-num\u0001';

/**
 * JSON.stringify, except that digit-string values of `keys` (integers, or decimals such as
 * "0.123456789012345678") are written as bare JSON numbers, verbatim (so 1950000000000000001
 * appears in the text as is, beyond what a double can hold).
 */
export function stringifyWithRawIds(
	value: unknown,
	keys: ReadonlySet<string> = NUMERIC_ID_KEYS,
): string {
	const text = JSON.stringify(value, (k, v: unknown) =>
		keys.has(k) && typeof v === 'string' && /^-?\d{1,30}(?:\.\d{1,30})?$/.test(v)
			? `${RAW_MARK}${v}${RAW_MARK}`
			: v,
	);
	// JSON.stringify escapes the \u0001 marks as the six characters \u0001
	return text.replace(/"\\u0001raw-num\\u0001(-?\d+(?:\.\d+)?)\\u0001raw-num\\u0001"/g, '$1');
}
