import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	plainReferencePath,
	resolveFromItem,
	valueAtPath,
} from '../../../../nodes/TradingService/helpers/itemReference';
import { TradingService } from '../../../../nodes/TradingService/TradingService.node';

// The direct read of mapped fields, against fixed vectors: which stored values are plain
// references, the paths they name, and which values are read rather than left to n8n. Equality
// with a real n8n's evaluation is test/e2e/itemReference.e2e.test.ts's job.

describe('plainReferencePath', () => {
	it.each([
		['={{ $json.price }}', ['price']],
		['={{$json.price}}', ['price']],
		['={{   $json.price   }}', ['price']],
		['={{\n\t$json.price\r\n}}', ['price']],
		['={{\u00a0$json.price\u2028}}', ['price']],
		['={{ $json["limit price"] }}', ['limit price']],
		["={{ $json['limit price'] }}", ['limit price']],
		['={{ $json["x.y"] }}', ['x.y']],
		['={{ $json[\'say "hi"\'] }}', ['say "hi"']],
		['={{ $json["it\'s"] }}', ["it's"]],
		['={{ $json["ünï 😀"] }}', ['ünï 😀']],
		['={{ $json[""] }}', ['']],
		['={{ $json["0"] }}', ['0']],
		['={{ $json[0] }}', ['0']],
		['={{ $json[12] }}', ['12']],
		['={{ $json.order.legs[0].qty }}', ['order', 'legs', '0', 'qty']],
		['={{ $json.a[0][1]["b c"].d }}', ['a', '0', '1', 'b c', 'd']],
	])('%j names %j', (stored, path) => {
		expect(plainReferencePath(stored)).toEqual(path);
	});

	it.each([
		// Not an expression, or more than one reference.
		['$json.price'],
		['{{ $json.price }}'],
		[' ={{ $json.price }}'],
		['=$json.price'],
		['=x{{ $json.price }}'],
		['={{ $json.price }}x'],
		['={{ $json.price }} '],
		['={{ $json.price }}\n'],
		['={{ $json.a }}{{ $json.b }}'],
		// Expressions that compute, or reach beyond the item's JSON.
		['={{ $json }}'],
		['={{ $json.price + 1 }}'],
		['={{ $json.price.toFixed(2) }}'],
		['={{ $json?.price }}'],
		['={{ $json.price ?? 0 }}'],
		['={{ $json.price // note\n}}'],
		['={{ $input.item.json.price }}'],
		['={{ $("Set").item.json.price }}'],
		['={{ $item(0).$json.price }}'],
		['={{ $binary.price }}'],
		// Spellings the pattern does not take.
		['={{ $json . price }}'],
		['={{ $json[ "price" ] }}'],
		['={{ $json[price] }}'],
		['={{ $json[01] }}'],
		['={{ $json[-1] }}'],
		['={{ $json[1.5] }}'],
		['={{ $json["a\\"b"] }}'],
		["={{ $json['a\\'b'] }}"],
		['={{ $json["a\nb"] }}'],
		['={{ $json["a\u2028b"] }}'],
		['={{ $json.héllo }}'],
		['={{ $json.1a }}'],
		['={{ $json.price. }}'],
		['={{ $json[`price`] }}'],
	])('%j is not a plain reference', (stored) => {
		expect(plainReferencePath(stored)).toBeUndefined();
	});

	it.each([
		'constructor',
		'__proto__',
		'prototype',
		'getPrototypeOf',
		'defineProperty',
		'__defineGetter__',
		'caller',
		'arguments',
		'mainModule',
	])('refuses the name %s, which n8n refuses, in any spelling', (name) => {
		expect(plainReferencePath(`={{ $json.${name} }}`)).toBeUndefined();
		expect(plainReferencePath(`={{ $json["${name}"] }}`)).toBeUndefined();
		expect(plainReferencePath(`={{ $json.a["${name}"].b }}`)).toBeUndefined();
		expect(plainReferencePath(`={{ $json["x ${name}"] }}`)).toBeUndefined();
	});

	it('takes names that only contain a refused one', () => {
		expect(plainReferencePath('={{ $json.constructorId }}')).toEqual(['constructorId']);
		expect(plainReferencePath('={{ $json.caller_id }}')).toEqual(['caller_id']);
	});

	it.each([undefined, null, 5, true, {}, ['={{ $json.a }}']])('%j is not one', (stored) => {
		expect(plainReferencePath(stored)).toBeUndefined();
	});
});

describe('valueAtPath', () => {
	const item: IDataObject = {
		text: 'abc',
		empty: '',
		zero: 0,
		negativeZero: -0,
		big: 123456789012345678,
		flag: false,
		nothing: null,
		order: { legs: [{ qty: '0.10' }, { qty: 2 }] },
		'a b': 'spaced',
		list: [1, 2, 3],
		length: 9,
	};

	it.each([
		[['text'], 'abc'],
		[['empty'], ''],
		[['zero'], 0],
		[['big'], 123456789012345678],
		[['flag'], false],
		[['order', 'legs', '0', 'qty'], '0.10'],
		[['order', 'legs', '1', 'qty'], 2],
		[['a b'], 'spaced'],
		[['list', '2'], 3],
		// An array's length is its own property: n8n reads it the same way.
		[['list', 'length'], 3],
		[['length'], 9],
	])('%j reads %j', (path, value) => {
		expect(valueAtPath(item, path)).toBe(value);
	});

	it('keeps -0 apart from 0', () => {
		expect(Object.is(valueAtPath(item, ['negativeZero']), -0)).toBe(true);
		expect(Object.is(valueAtPath(item, ['zero']), 0)).toBe(true);
	});

	it.each([
		[['missing']],
		[['nothing']],
		[['nothing', 'x']],
		[['order']],
		[['order', 'legs']],
		[['order', 'legs', '5', 'qty']],
		[['text', 'length']],
		[['text', '0']],
		[['zero', 'x']],
		[['list', 'map']],
		[['toString']],
		[['order', 'hasOwnProperty']],
	])('%j falls back', (path) => {
		expect(valueAtPath(item, path)).toBeUndefined();
	});

	it.each([
		['NaN', NaN],
		['Infinity', Infinity],
		['-Infinity', -Infinity],
		['undefined', undefined],
		['a Date', new Date(0)],
		['a bigint', BigInt(1)],
		['a boxed string', Object('abc')],
		['a function', () => 1],
		['a symbol', Symbol('s')],
	])('falls back for %s', (_label, value) => {
		expect(valueAtPath({ v: value } as unknown as IDataObject, ['v'])).toBeUndefined();
	});

	it('reads only through own properties of plain objects and arrays', () => {
		class Holder {
			v = 'in class';
		}
		expect(valueAtPath({ a: new Holder() } as unknown as IDataObject, ['a', 'v'])).toBeUndefined();
		const inherited = Object.create({ v: 'inherited' }) as IDataObject;
		expect(valueAtPath(inherited, ['v'])).toBeUndefined();
		expect(valueAtPath({ a: inherited }, ['a', 'v'])).toBeUndefined();
		const date = Object.assign(new Date(0), { v: 'on a date' });
		expect(valueAtPath({ a: date } as unknown as IDataObject, ['a', 'v'])).toBeUndefined();
		const bare = Object.assign(Object.create(null) as IDataObject, { v: 'no prototype' });
		expect(valueAtPath({ a: bare }, ['a', 'v'])).toBe('no prototype');
		const holes: unknown[] = [];
		holes[1] = 'b';
		expect(valueAtPath({ a: holes } as IDataObject, ['a', '0'])).toBeUndefined();
		expect(valueAtPath({ a: holes } as IDataObject, ['a', '1'])).toBe('b');
	});
});

describe('resolveFromItem', () => {
	const item: IDataObject = { id: 'ORD-1', price: '50000.1', qty: 0.5, post: true, n: null };

	it('keeps values without expressions as stored', () => {
		for (const stored of ['BTCUSDT', '', 5, -1.5, true, false, null])
			expect(resolveFromItem(stored, item)).toBe(stored);
		expect(resolveFromItem({ a: 'x', b: [1, 'y'] }, item)).toEqual({ a: 'x', b: [1, 'y'] });
	});

	it('reads plain references with their type', () => {
		expect(resolveFromItem('={{ $json.price }}', item)).toBe('50000.1');
		expect(resolveFromItem('={{ $json.qty }}', item)).toBe(0.5);
		expect(resolveFromItem('={{ $json.post }}', item)).toBe(true);
	});

	it.each([
		['={{ $json.n }}'],
		['={{ $json.missing }}'],
		['={{ $json.price + 1 }}'],
		['=plain text after the marker'],
		['={{ $json.constructor }}'],
	])('%j: undefined, so that n8n evaluates it', (stored) => {
		expect(resolveFromItem(stored, item)).toBeUndefined();
	});

	it('resolves a collection, copying it', () => {
		const stored = {
			price: '={{ $json.price }}',
			postOnly: '={{ $json.post }}',
			stp: 'NONE',
			n: 2,
		};
		const resolved = resolveFromItem(stored, item);
		expect(resolved).toEqual({ price: '50000.1', postOnly: true, stp: 'NONE', n: 2 });
		expect(resolved).not.toBe(stored);
		expect(stored.price).toBe('={{ $json.price }}');
	});

	it('resolves a resource locator by ID', () => {
		const stored = { __rl: true, mode: 'id', value: '={{ $json.id }}', cachedResultName: 'x' };
		expect(resolveFromItem(stored, item)).toEqual({
			__rl: true,
			mode: 'id',
			value: 'ORD-1',
			cachedResultName: 'x',
		});
	});

	it('resolves lists of rows (fixed collections)', () => {
		const stored = { rows: [{ v: '={{ $json.id }}' }, { v: '={{ $json.qty }}', fixed: 'x' }] };
		expect(resolveFromItem(stored, item)).toEqual({
			rows: [{ v: 'ORD-1' }, { v: 0.5, fixed: 'x' }],
		});
	});

	it.each([
		[{ price: '={{ $json.price }}', other: '={{ $json.price * 2 }}' }],
		[{ price: '={{ $json.price }}', other: '={{ $json.n }}' }],
		[{ __rl: true, mode: 'id', value: '={{ $json.id.trim() }}' }],
		[{ rows: [{ v: '={{ $json.id }}' }, { v: '={{ $json.missing }}' }] }],
		[['={{ $json.id }}', '={{ $json.nested.deep }}']],
	])('leaves %j whole to n8n when one expression in it is not a plain read', (stored) => {
		expect(resolveFromItem(stored, item)).toBeUndefined();
	});
});

/**
 * Shapes where a real n8n 2.41.1 gives something else than the item's value (found by
 * test/e2e/itemReference.e2e.test.ts, which holds each against n8n): the direct read must leave
 * them to n8n.
 */
describe('shapes n8n 2.41.1 evaluates differently', () => {
	const item = {
		d: { $: { v: 'dollar' } },
		globalThis: 'g',
		'}}': 'braces',
		'a}}b': 'braces',
		toString: 's',
		hasOwnProperty: 'h',
		valueOf: 'v',
		isPrototypeOf: 'i',
		propertyIsEnumerable: 'p',
		toLocaleString: 'l',
		nested: { toString: 'nested' },
		list: Object.assign(['a'], { named: 'x' }),
	} as unknown as IDataObject;

	it.each([
		// Every engine: n8n's sandbox refuses `$` as the object of a member ("Cannot access "$"
		// without calling it as a function").
		['={{ $json.d.$.v }}'],
		['={{ $json.d.$["v"] }}'],
		// Every engine: the sandbox replaces the name globalThis ("Unknown property type
		// ObjectExpression while sanitising expression").
		['={{ $json.globalThis }}'],
		// Every engine: n8n's template ends the expression at the first "}}" ("invalid syntax").
		['={{ $json["}}"] }}'],
		['={{ $json["a}}b"] }}'],
		// The vm (default) and quickjs engines read Object.prototype's methods, not the item's own
		// values ("function toString() { [native code] } could not be cloned").
		['={{ $json.toString }}'],
		['={{ $json["toString"] }}'],
		['={{ $json.hasOwnProperty }}'],
		['={{ $json.valueOf }}'],
		['={{ $json.isPrototypeOf }}'],
		['={{ $json.propertyIsEnumerable }}'],
		['={{ $json.toLocaleString }}'],
		['={{ $json.nested.toString }}'],
		// The vm and quickjs engines give an array's named (non-index) properties as undefined.
		['={{ $json.list.named }}'],
	])('%j falls back', (stored) => {
		expect(resolveFromItem(stored, item)).toBeUndefined();
	});

	it.each([
		// The quickjs engine cuts a string at U+0000 and turns a lone surrogate into U+FFFD × 3.
		['a\u0000b'],
		['\ud800'],
		['a\udc00b'],
	])('a string holding %j falls back', (value) => {
		expect(resolveFromItem('={{ $json.v }}', { v: value })).toBeUndefined();
	});

	it('leaves every `$` in a .name and every refused word to n8n, even where n8n would read it; still reads an array length and paired surrogates', () => {
		// Wider than n8n needs (n8n reads `$json.d.$` and `$json["globalThis"]`): safe, only slower.
		expect(resolveFromItem('={{ $json.d.$ }}', { d: { $: 'x' } })).toBeUndefined();
		expect(resolveFromItem('={{ $json._a$1 }}', { _a$1: 'x' })).toBeUndefined();
		expect(resolveFromItem('={{ $json["globalThis"] }}', item)).toBeUndefined();
		expect(resolveFromItem('={{ $json.list.length }}', item)).toBe(1);
		expect(resolveFromItem('={{ $json.v }}', { v: 'a😀b' })).toBe('a😀b');
	});
});

describe('the parameters the direct read serves', () => {
	// n8n converts a parameter's value when its description sets validateType (n8n-core's
	// validateValueAgainstSchema); the direct read does not, so no property may set it.
	function withValidateType(properties: readonly INodeProperties[], trail = ''): string[] {
		const found: string[] = [];
		for (const property of properties) {
			const name = `${trail}${property.name}`;
			if (property.validateType !== undefined) found.push(name);
			for (const option of property.options ?? []) {
				if ('values' in option) found.push(...withValidateType(option.values, `${name}.`));
				else if ('type' in option) found.push(...withValidateType([option], `${name}.`));
			}
		}
		return found;
	}

	it('declare no validateType, in either version of the node', () => {
		const nodeType = new TradingService();
		for (const version of [1, 2]) {
			const { properties } = nodeType.getNodeType(version).description;
			expect([version, withValidateType(properties)]).toEqual([version, []]);
		}
	});
});
