import type { IDataObject } from 'n8n-workflow';

/**
 * Mapped fields without n8n's expression engine, where that is exact.
 *
 * A parameter whose whole stored value is one plain reference to the input item, such as
 * `={{ $json.price }}`, `={{ $json["limit price"] }}` or `={{ $json.order.legs[0].qty }}`, names a
 * value n8n's engine would only look up: that costs about a millisecond per field and item in a
 * real n8n, most of a mapped Create's time. Such a value is read here straight from the item, but
 * only when the engine would give exactly the same: a string, a boolean or a finite number, reached
 * through the item's own properties. Everything else (a missing field, null, an object, anything
 * more than a plain reference) returns undefined and the caller asks n8n as before, so n8n's own
 * errors and conversions still apply. test/e2e/itemReference.e2e.test.ts checks the equality
 * against a real n8n's evaluation, shape by shape.
 */

/**
 * A plain reference: `$json` then one or more `.name`, `["key"]`, `['key']` or `[0]` steps. A `$`
 * in a `.name` is left to n8n (its engines treat `.$` as a call).
 */
const PLAIN_REFERENCE =
	/^=\{\{\s*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:"[^"\\\r\n\u2028\u2029]*"|'[^'\\\r\n\u2028\u2029]*'|0|[1-9][0-9]*)\])+)\s*\}\}$/;

const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(?:"([^"]*)"|'([^']*)'|([0-9]+))\]/g;

/**
 * Names n8n's expression engines do not simply look up, so a reference naming one anywhere is
 * never read here (each found against a real n8n 2.41.1, test/e2e/itemReference.e2e.test.ts):
 * the property names its sandbox refuses (n8n-workflow's unsafe object properties); `globalThis`,
 * which its sanitiser rejects; and the methods every object inherits (`toString`, …), which its
 * vm and quickjs engines cannot copy out of the isolate even when the item has its own such key.
 */
const NOT_A_LOOKUP =
	/\b(?:__proto__|prototype|constructor|getPrototypeOf|setPrototypeOf|getOwnPropertyDescriptors?|defineProperty|defineProperties|mainModule|binding|_linkedBinding|_load|prepareStackTrace|__lookupGetter__|__lookupSetter__|__defineGetter__|__defineSetter__|caller|callee|arguments|getBuiltinModule|dlopen|execve|loadEnvFile|globalThis|toString|valueOf|hasOwnProperty|isPrototypeOf|propertyIsEnumerable|toLocaleString)\b/;

/**
 * Text the engines do not keep as it is: NUL and unpaired surrogates (the quickjs engine cuts a
 * string at NUL and replaces a lone surrogate).
 */
const NOT_KEPT_AS_IS =
	/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A canonical array index: what an engine copies of an array (its named properties it drops). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The steps of a plain `$json` reference, or undefined when `stored` is anything else. */
export function plainReferencePath(stored: unknown): string[] | undefined {
	if (typeof stored !== 'string' || !stored.startsWith('={{')) return undefined;
	const match = PLAIN_REFERENCE.exec(stored);
	// n8n ends an expression at the first "}}", even inside a quoted key.
	const inner = stored.slice(3, -2);
	if (
		match === null ||
		inner.includes('}}') ||
		inner.includes('{{') ||
		NOT_A_LOOKUP.test(stored) ||
		NOT_KEPT_AS_IS.test(stored)
	)
		return undefined;
	const path: string[] = [];
	for (const step of match[1].matchAll(STEP)) path.push(step[1] ?? step[2] ?? step[3] ?? step[4]);
	return path;
}

/** A value the engine gives back unchanged. */
export type PlainValue = string | number | boolean;

/**
 * The value at `path` in the item's JSON when it is a string, a boolean or a finite number reached
 * through own properties of plain objects and arrays; undefined otherwise (ask n8n).
 */
export function valueAtPath(json: IDataObject, path: string[]): PlainValue | undefined {
	let value: unknown = json;
	for (const key of path) {
		if (value === null || typeof value !== 'object') return undefined;
		const prototype = Object.getPrototypeOf(value) as unknown;
		if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null)
			return undefined;
		if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
		if (Array.isArray(value) && key !== 'length' && !ARRAY_INDEX.test(key)) return undefined;
		value = (value as IDataObject)[key];
	}
	if (typeof value === 'string') return NOT_KEPT_AS_IS.test(value) ? undefined : value;
	if (typeof value === 'boolean') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	return undefined;
}

/**
 * A stored parameter value with every expression in it resolved from the item, or undefined when
 * one of them is not a plain reference to a plain value (ask n8n for the whole parameter). Values
 * without expressions are kept as stored; collections and resource locators are copied.
 */
export function resolveFromItem(stored: unknown, json: IDataObject): unknown {
	if (typeof stored === 'string') {
		if (!stored.startsWith('=')) return stored;
		const path = plainReferencePath(stored);
		return path === undefined ? undefined : valueAtPath(json, path);
	}
	if (Array.isArray(stored)) {
		const resolved: unknown[] = [];
		for (const entry of stored) {
			const value = resolveFromItem(entry, json);
			if (value === undefined) return undefined;
			resolved.push(value);
		}
		return resolved;
	}
	if (stored !== null && typeof stored === 'object') {
		const resolved: IDataObject = {};
		for (const [key, entry] of Object.entries(stored as IDataObject)) {
			const value = resolveFromItem(entry, json);
			if (value === undefined) return undefined;
			resolved[key] = value as IDataObject[string];
		}
		return resolved;
	}
	return stored;
}
