/**
 * The exact JSON parser (docs/transport.md "Reading the answer"): one pass with charCodeAt, as
 * strict as JSON.parse. A number a double cannot hold exactly, or under a key of `textFields`,
 * becomes its literal text. A `__proto__` key is data, as with JSON.parse.
 */
/** Deepest nesting accepted; the service's answers are at most three levels deep. */
export const MAX_JSON_DEPTH = 64;

export class JsonSyntaxError extends Error {
	constructor(
		message: string,
		readonly position: number,
	) {
		super(`${message} at position ${position}`);
		this.name = 'JsonSyntaxError';
	}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const ESCAPES: Record<number, string> = {
	0x22: '"',
	0x5c: '\\',
	0x2f: '/',
	0x62: '\b',
	0x66: '\f',
	0x6e: '\n',
	0x72: '\r',
	0x74: '\t',
};

/** Most significant digits a decimal may have and always read back from a double as written. */
export const MAX_EXACT_DIGITS = 15;

/** How JSON.parse sets a key: `__proto__` too is an own property, not the prototype. */
const OWN_DATA = { writable: true, enumerable: true, configurable: true };

/** The shortest string V8 represents as a view into its parent string (SlicedString::kMinLength). */
const SLICE_MIN_LENGTH = 13;

function isDigit(code: number): boolean {
	return code >= ZERO && code <= NINE;
}

function hexValue(code: number): number {
	if (code >= 0x30 && code <= 0x39) return code - 0x30;
	if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
	if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
	return -1;
}

class Parser {
	private index = 0;
	constructor(
		private readonly text: string,
		private readonly textFields: ReadonlySet<string>,
	) {}

	parseDocument(): unknown {
		this.skipWhitespace();
		const value = this.parseValue(0);
		this.skipWhitespace();
		if (this.index < this.text.length) this.fail('Unexpected text after the JSON value');
		return value;
	}

	private fail(message: string): never {
		throw new JsonSyntaxError(message, this.index);
	}

	private skipWhitespace(): void {
		const { text } = this;
		while (this.index < text.length) {
			const code = text.charCodeAt(this.index);
			if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
			this.index++;
		}
	}

	private parseValue(depth: number): unknown {
		if (this.index >= this.text.length) this.fail('Unexpected end of JSON');
		const code = this.text.charCodeAt(this.index);
		if (code === QUOTE) return this.parseString();
		if (code === 0x7b) return this.parseObject(depth + 1);
		if (code === 0x5b) return this.parseArray(depth + 1);
		if (code === MINUS || isDigit(code)) return this.parseNumber();
		if (this.text.startsWith('true', this.index)) return this.literal(4, true);
		if (this.text.startsWith('false', this.index)) return this.literal(5, false);
		if (this.text.startsWith('null', this.index)) return this.literal(4, null);
		return this.fail('Unexpected character');
	}

	private literal<T>(length: number, value: T): T {
		this.index += length;
		return value;
	}

	/** Past an opening bracket: whether its closing one follows at once. */
	private opensEmpty(close: number, depth: number): boolean {
		if (depth > MAX_JSON_DEPTH) this.fail(`Nesting deeper than ${MAX_JSON_DEPTH}`);
		this.index++;
		this.skipWhitespace();
		if (this.text.charCodeAt(this.index) !== close) return false;
		this.index++;
		return true;
	}

	/** After an element: true past a ",", false past the closing bracket. */
	private continues(close: number, expected: string): boolean {
		this.skipWhitespace();
		const next = this.text.charCodeAt(this.index);
		if (next !== 0x2c && next !== close) this.fail(expected);
		this.index++;
		return next === 0x2c;
	}

	private parseObject(depth: number): Record<string, unknown> {
		const object: Record<string, unknown> = {};
		if (this.opensEmpty(0x7d, depth)) return object;
		for (;;) {
			this.skipWhitespace();
			if (this.text.charCodeAt(this.index) !== QUOTE) this.fail('Expected a property name');
			const key = this.parseString();
			this.skipWhitespace();
			if (this.text.charCodeAt(this.index) !== 0x3a) this.fail('Expected ":"');
			this.index++;
			this.skipWhitespace();
			const value = this.textFields.has(key) ? this.parseFieldValue(depth) : this.parseValue(depth);
			if (key === '__proto__') Object.defineProperty(object, key, { ...OWN_DATA, value });
			else object[key] = value;
			if (!this.continues(0x7d, 'Expected "," or "}"')) return object;
		}
	}

	private parseArray(depth: number): unknown[] {
		const array: unknown[] = [];
		if (this.opensEmpty(0x5d, depth)) return array;
		for (;;) {
			this.skipWhitespace();
			array.push(this.parseValue(depth));
			if (!this.continues(0x5d, 'Expected "," or "]"')) return array;
		}
	}

	private parseString(): string {
		const { text } = this;
		const start = ++this.index;
		for (let at = start; at < text.length; at++) {
			const code = text.charCodeAt(at);
			if (code === QUOTE) {
				this.index = at + 1;
				// V8 makes a slice of 13 or more characters a view of the whole answer text, kept in memory
				// as long as the string is: JSON.parse of the quoted slice builds a new string instead.
				return at - start < SLICE_MIN_LENGTH
					? text.slice(start, at)
					: (JSON.parse(text.slice(start - 1, at + 1)) as string);
			}
			if (code === BACKSLASH) break;
			if (code < 0x20) {
				this.index = at;
				this.fail('Control character in a string');
			}
		}
		let result = '';
		let chunkStart = start;
		while (this.index < text.length) {
			const code = text.charCodeAt(this.index);
			if (code === QUOTE) {
				result += text.slice(chunkStart, this.index);
				this.index++;
				// Flattened into a new string: the pieces may be views of the whole answer text (above).
				return result.length < SLICE_MIN_LENGTH
					? result
					: (JSON.parse(JSON.stringify(result)) as string);
			}
			if (code < 0x20) this.fail('Control character in a string');
			if (code !== BACKSLASH) {
				this.index++;
				continue;
			}
			result += text.slice(chunkStart, this.index);
			const escape = text.charCodeAt(this.index + 1);
			if (escape === 0x75) {
				let unit = 0;
				for (let digit = 2; digit < 6; digit++) {
					const value = hexValue(text.charCodeAt(this.index + digit));
					if (value < 0) {
						this.index += digit;
						this.fail('Bad \\u escape');
					}
					unit = unit * 16 + value;
				}
				result += String.fromCharCode(unit);
				this.index += 6;
			} else {
				const replacement = ESCAPES[escape];
				if (replacement === undefined) {
					this.index++;
					this.fail('Bad escape');
				}
				result += replacement;
				this.index += 2;
			}
			chunkStart = this.index;
		}
		return this.fail('Unterminated string');
	}

	/** A value under a key of `textFields`: a number literal is kept as its text, whatever its form. */
	private parseFieldValue(depth: number): unknown {
		const code = this.text.charCodeAt(this.index);
		if (code !== MINUS && !isDigit(code)) return this.parseValue(depth);
		const start = this.index;
		this.parseNumber();
		return this.text.slice(start, this.index);
	}

	private parseNumber(): number | string {
		const { text } = this;
		const start = this.index;
		if (text.charCodeAt(this.index) === MINUS) this.index++;
		const first = text.charCodeAt(this.index);
		if (first === ZERO) {
			this.index++;
		} else if (isDigit(first)) {
			while (isDigit(text.charCodeAt(this.index))) this.index++;
		} else {
			this.fail('Bad number');
		}
		let mantissaEnd = this.index;
		let isInteger = true;
		if (text.charCodeAt(this.index) === DOT) {
			isInteger = false;
			this.index++;
			if (!isDigit(text.charCodeAt(this.index))) this.fail('Bad number');
			while (isDigit(text.charCodeAt(this.index))) this.index++;
			mantissaEnd = this.index;
		}
		const exponent = text.charCodeAt(this.index);
		if (exponent === 0x65 || exponent === 0x45) {
			isInteger = false;
			this.index++;
			const sign = text.charCodeAt(this.index);
			if (sign === PLUS || sign === MINUS) this.index++;
			if (!isDigit(text.charCodeAt(this.index))) this.fail('Bad number');
			while (isDigit(text.charCodeAt(this.index))) this.index++;
		}
		const literal = text.slice(start, this.index);
		const value = Number(literal);
		if (isInteger) return Number.isSafeInteger(value) ? value : literal;
		// A decimal the service wrote with more digits than a double holds (an 18-decimal amount)
		// would come back rounded: its text is kept instead, as for long integers.
		const digits = significantDigits(text, start, mantissaEnd);
		if (digits > MAX_EXACT_DIGITS || !Number.isFinite(value) || (value === 0 && digits > 0))
			return literal;
		return value;
	}
}

/**
 * Significant digits of a number literal's mantissa text[start, end) (sign, digits, fraction): from
 * its first non-zero digit to its last, the dot not counted; 0 for a zero.
 */
export function significantDigits(text: string, start: number, end: number): number {
	let first = -1;
	let last = -1;
	for (let at = start; at < end; at++) {
		const code = text.charCodeAt(at);
		if (code > ZERO && code <= NINE) {
			if (first < 0) first = at;
			last = at;
		}
	}
	if (first < 0) return 0;
	const dot = text.indexOf('.', first);
	return last - first + 1 - (dot >= 0 && dot < last ? 1 : 0);
}

export const NO_FIELDS: ReadonlySet<string> = new Set();

/** The exact parser alone: parseJsonKeepingDigits's fallback (answer.ts) and its tests' reference. */
export function parseJsonExactly(
	text: string,
	textFields: ReadonlySet<string> = NO_FIELDS,
): unknown {
	return new Parser(text, textFields).parseDocument();
}
