import type { IDataObject } from 'n8n-workflow';

/*
 * Mapped fields without n8n's expression engine, where that is exact. A plain reference such as
 * `={{ $json.order.legs[0].qty }}` costs n8n's engine about a millisecond per field and item, most
 * of a mapped Create's time. It is read here straight from the item only when the engine would give
 * exactly the same (a string, a boolean or a finite number through own properties); anything else
 * returns undefined and the caller asks n8n, so its errors and conversions still apply.
 * test/e2e/itemReference.e2e.test.ts checks the equality against a real n8n, shape by shape.
 */

/**
 * A plain reference: `$json` then one or more `.name`, `["key"]`, `['key']` or `[0]` steps. A `$`
 * in a `.name` is left to n8n (its engines treat `.$` as a call).
 */
const PLAIN_REFERENCE =
	/^=\{\{\s*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:"[^"\\\r\n\u2028\u2029]*"|'[^'\\\r\n\u2028\u2029]*'|0|[1-9][0-9]*)\])+)\s*\}\}$/;

const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(?:"([^"]*)"|'([^']*)'|([0-9]+))\]/g;

/**
 * Names n8n's engines do not simply look up (found against n8n 2.41.1): those its sandbox refuses,
 * `globalThis` (its sanitiser rejects it), and inherited methods (`toString`, …), which its vm and
 * quickjs engines cannot copy out of the isolate even when the item has its own such key.
 */
const NOT_A_LOOKUP =
	/\b(?:__proto__|prototype|constructor|getPrototypeOf|setPrototypeOf|getOwnPropertyDescriptors?|defineProperty|defineProperties|mainModule|binding|_linkedBinding|_load|prepareStackTrace|__lookupGetter__|__lookupSetter__|__defineGetter__|__defineSetter__|caller|callee|arguments|getBuiltinModule|dlopen|execve|loadEnvFile|globalThis|toString|valueOf|hasOwnProperty|isPrototypeOf|propertyIsEnumerable|toLocaleString)\b/;

/** Not kept as is: quickjs cuts a string at NUL and replaces a lone surrogate. */
const NOT_KEPT_AS_IS =
	/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A canonical array index: what an engine copies of an array (its named properties it drops). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The steps of a plain `$json` reference; undefined for anything else. */
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

/** A string, boolean or finite number through own properties of plain objects and arrays. */
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
 * A stored parameter value with every expression resolved from the item, or undefined when one is
 * not a plain reference to a plain value (ask n8n for the whole parameter).
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
