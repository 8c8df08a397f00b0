import { readFileSync } from 'fs';
import { join } from 'path';

import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

import { OPERATIONS as ROUTED } from '../../../nodes/TradingService/actions/router';
import { TradingService } from '../../../nodes/TradingService/TradingService.node';

// The action node's description: what n8n and its AI agents read, and that every resource and
// operation it offers is one the router runs.

const nodeType = new TradingService();
/** The operations only version 2 offers. */
const VERSION_2_ONLY = ['getAccounts', 'getTrades'];
/** The resources only version 2 offers. */
const VERSION_2_RESOURCES = ['futures', 'wallet'];
/** The resources and operations the router runs, by resource. */
const OPERATIONS: Record<string, Record<string, unknown>> = ROUTED;

/** Words Title Case leaves in lower case, but never as the first word. */
const MINOR_WORDS = new Set([
	'a',
	'an',
	'and',
	'as',
	'at',
	'by',
	'for',
	'in',
	'of',
	'on',
	'or',
	'per',
	'the',
	'to',
	'with',
]);

/** The words of a name that break Title Case. */
function notTitleCase(name: string): string[] {
	return name.split(/\s+/).filter((word, index) => {
		if (index > 0 && MINOR_WORDS.has(word)) return false;
		return !/^\(?[A-Z0-9]/.test(word);
	});
}

/** Every property and option name the editor shows, collections and their options included. */
function shownNames(properties: readonly INodeProperties[]): string[] {
	const names: string[] = [];
	for (const property of properties) {
		// A notice is a sentence, not a name.
		if (property.type === 'notice') continue;
		names.push(property.displayName);
		for (const option of property.options ?? []) {
			if ('displayName' in option && 'type' in option)
				names.push(...shownNames([option as INodeProperties]));
			else if ('values' in option) {
				names.push((option as INodePropertyCollection).displayName);
				names.push(...shownNames((option as INodePropertyCollection).values));
			} else names.push((option as INodePropertyOptions).name);
		}
	}
	return names;
}

const operationPropertyOf = (description: INodeTypeDescription) => (resource: string) =>
	description.properties.find(
		(property) =>
			property.name === 'operation' &&
			(property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource),
	);

describe('TradingService node versions', () => {
	it('gives new workflows version 2 and keeps version 1 for saved ones', () => {
		expect(nodeType.description.defaultVersion).toBe(2);
		expect(nodeType.getNodeType().description.version).toBe(2);
		expect(nodeType.getNodeType(1).description.version).toBe(1);
		expect(Object.keys(nodeType.nodeVersions).sort()).toEqual(['1', '2']);
	});

	it('offers list searches for the pickers in version 2 only', () => {
		expect(Object.keys(nodeType.getNodeType(2).methods?.listSearch ?? {}).sort()).toEqual([
			'searchAccounts',
			'searchCoins',
			'searchContracts',
			'searchOpenOrders',
			'searchSymbols',
			'searchTradingAccounts',
		]);
		expect(nodeType.getNodeType(1).methods).toBeUndefined();
	});

	it('has no picker in version 1, and a picker for every symbol, coin, account and order ID in version 2', () => {
		const typesOf = (version: number, names: string[]) =>
			nodeType
				.getNodeType(version)
				.description.properties.filter((property) => names.includes(property.name))
				// Futures › Get Order takes a typed order ID: there is no list of futures orders to pick from.
				.filter(
					(property) =>
						!(property.displayOptions?.show?.resource as string[] | undefined)?.includes(
							'futures',
						) || property.name !== 'orderId',
				)
				.map((property) => property.type);
		const picked = ['symbol', 'coin', 'fromAccountId', 'toAccountId', 'orderId'];
		expect(new Set(typesOf(1, picked))).toEqual(new Set(['string']));
		expect(new Set(typesOf(2, picked))).toEqual(new Set(['resourceLocator']));
		expect(typesOf(2, picked).length).toBeGreaterThanOrEqual(15);
	});
});

describe.each([1, 2])('TradingService node description, version %i', (version) => {
	const description = nodeType.getNodeType(version).description;
	const operationProperty = operationPropertyOf(description);
	const resources = Object.keys(OPERATIONS).filter(
		(resource) => version === 2 || !VERSION_2_RESOURCES.includes(resource),
	);
	const offered = (resource: string) =>
		Object.keys(OPERATIONS[resource]).filter(
			(operation) => version === 2 || !VERSION_2_ONLY.includes(operation),
		);

	it('is the tradingService node, usable as an AI tool, with the Trading Service API credential', () => {
		expect(description.name).toBe('tradingService');
		expect(description.displayName).toBe('Trading Service');
		expect(description.usableAsTool).toBe(true);
		expect(description.credentials).toEqual([{ name: 'tradingServiceApi', required: true }]);
		expect(description.version).toBe(version);
	});

	it('writes every property, option and collection name in Title Case', () => {
		const names = shownNames(description.properties);
		expect(names.length).toBeGreaterThan(50);
		expect(names.filter((name) => notTitleCase(name).length > 0)).toEqual([]);
		// The check itself tells Title Case from other casing.
		expect(notTitleCase('Receive window')).toEqual(['window']);
		expect(notTitleCase('of Orders')).toEqual(['of']);
		expect(notTitleCase("Map Each Item's Fields Automatically")).toEqual([]);
	});

	it('offers the resources the router knows, and only those', () => {
		const resource = description.properties.find((property) => property.name === 'resource');
		const values = (resource?.options as INodePropertyOptions[]).map((option) => option.value);
		expect(values).toEqual(resources);
		expect(values).toContain(resource?.default);
	});

	it.each(resources)(
		'routes every operation it offers for %s, and offers every operation the router runs',
		(resource) => {
			const property = operationProperty(resource);
			const options = property?.options as INodePropertyOptions[];
			expect(options.map((option) => option.value).sort()).toEqual(offered(resource).sort());
			expect(options.map((option) => option.value)).toContain(property?.default);
			expect(property?.noDataExpression).toBe(true);
		},
	);

	it('gives every operation an action and a description (what an AI agent reads)', () => {
		for (const resource of resources) {
			for (const option of operationProperty(resource)?.options as INodePropertyOptions[]) {
				expect(option.action).toMatch(/^[A-Z][a-z]/);
				expect(option.description?.length).toBeGreaterThan(10);
			}
		}
	});

	it('shows every other property only for a resource and operation that exist', () => {
		for (const property of description.properties) {
			if (property.name === 'resource' || property.name === 'operation') continue;
			const show = property.displayOptions?.show ?? {};
			const shownFor = show.resource as string[] | undefined;
			const operations = show.operation as string[] | undefined;
			expect({ property: property.name, shownFor, operations }).toEqual({
				property: property.name,
				shownFor: expect.any(Array),
				operations: expect.any(Array),
			});
			for (const resource of shownFor!) {
				expect(resources).toContain(resource);
				for (const operation of operations!) expect(offered(resource)).toContain(operation);
			}
		}
	});

	it('never declares one parameter twice for the same display conditions', () => {
		// Properties of one name must be told apart by what shows them (a resource, an operation,
		// an input mode, an order type): otherwise n8n would read one for the other.
		const seen = new Map<string, string[]>();
		for (const property of description.properties) {
			const key = `${property.name} ${JSON.stringify(property.displayOptions?.show ?? {})}`;
			seen.set(key, [...(seen.get(key) ?? []), property.displayName]);
		}
		expect([...seen.entries()].filter(([, shown]) => shown.length > 1)).toEqual([]);
	});
});

/** A property as a saved workflow depends on it: name, type, default, when shown, its choices. */
function savedShape(property: INodeProperties): unknown {
	const options = (property.options ?? []).map((option) => {
		if ('type' in option && 'displayName' in option) return savedShape(option as INodeProperties);
		if ('values' in option) {
			const collection = option as INodePropertyCollection;
			return { name: collection.name, values: collection.values.map(savedShape) };
		}
		return { value: (option as INodePropertyOptions).value };
	});
	return {
		name: property.name,
		type: property.type,
		default: property.default,
		...(property.displayOptions ? { displayOptions: property.displayOptions } : {}),
		...(property.options ? { options } : {}),
		...(property.required ? { required: true } : {}),
	};
}

/** Lists in one order (a saved workflow names parameters, it does not rely on their order), keys sorted. */
function canonical(value: unknown): unknown {
	if (Array.isArray(value)) {
		return value.map(canonical).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
	}
	if (value !== null && typeof value === 'object') {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
		);
	}
	return value;
}

describe('version 1 keeps its parameters', () => {
	it('has the names, types, defaults, display conditions and choices of the released version 1', () => {
		// Recorded from version 1 before version 2 existed (commit 3597396).
		const recorded = JSON.parse(
			readFileSync(join(__dirname, 'fixtures', 'version1-parameters.json'), 'utf8'),
		) as unknown[];
		const current = nodeType.getNodeType(1).description.properties.map(savedShape);
		expect(canonical(current)).toEqual(canonical(recorded));
	});
});
