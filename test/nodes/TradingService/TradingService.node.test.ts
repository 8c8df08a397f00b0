import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import * as account from '../../../nodes/TradingService/actions/account';
import * as market from '../../../nodes/TradingService/actions/market';
import * as order from '../../../nodes/TradingService/actions/order';
import { TradingService } from '../../../nodes/TradingService/TradingService.node';

// The action node's description: what n8n and its AI agents read, and that every resource and
// operation it offers is one the router runs.

const description = new TradingService().description;
const OPERATIONS: Record<string, Record<string, unknown>> = {
	account: account.operations,
	market: market.operations,
	order: order.operations,
};

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

const operationProperty = (resource: string) =>
	description.properties.find(
		(property) =>
			property.name === 'operation' &&
			(property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource),
	);

describe('TradingService node description', () => {
	it('is the tradingService node, usable as an AI tool, with the Trading Service API credential', () => {
		expect(description.name).toBe('tradingService');
		expect(description.displayName).toBe('Trading Service');
		expect(description.usableAsTool).toBe(true);
		expect(description.credentials).toEqual([{ name: 'tradingServiceApi', required: true }]);
		expect(description.version).toBe(1);
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
		expect(values).toEqual(Object.keys(OPERATIONS));
		expect(values).toContain(resource?.default);
	});

	it.each(Object.keys(OPERATIONS))(
		'routes every operation it offers for %s, and offers every operation the router runs',
		(resource) => {
			const property = operationProperty(resource);
			const options = property?.options as INodePropertyOptions[];
			expect(options.map((option) => option.value).sort()).toEqual(
				Object.keys(OPERATIONS[resource]).sort(),
			);
			expect(options.map((option) => option.value)).toContain(property?.default);
			expect(property?.noDataExpression).toBe(true);
		},
	);

	it('gives every operation an action and a description (what an AI agent reads)', () => {
		for (const resource of Object.keys(OPERATIONS)) {
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
			const resources = show.resource as string[] | undefined;
			const operations = show.operation as string[] | undefined;
			expect({ property: property.name, resources, operations }).toEqual({
				property: property.name,
				resources: expect.any(Array),
				operations: expect.any(Array),
			});
			for (const resource of resources!) {
				expect(Object.keys(OPERATIONS)).toContain(resource);
				for (const operation of operations!)
					expect(Object.keys(OPERATIONS[resource])).toContain(operation);
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
