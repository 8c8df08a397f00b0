import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { TradingService } from '../../../../nodes/TradingService/TradingService.node';

// The Futures form of version 2: parameter names are fixed (the examples and the e2e suite use
// them), every contract field is a contract picker, and version 1 does not offer the resource.

const nodeType = new TradingService();
const properties = (version: number) => nodeType.getNodeType(version).description.properties;

/** The parameters version 2 shows for a Futures operation (Options left out). */
function parametersOf(operation: string): string[] {
	return properties(2)
		.filter((property) => {
			const show = property.displayOptions?.show ?? {};
			return (
				(show.resource as string[] | undefined)?.includes('futures') &&
				(show.operation as string[] | undefined)?.includes(operation) &&
				property.name !== 'options'
			);
		})
		.map((property) => property.name);
}

describe('Futures form (version 2)', () => {
	it('offers the resource in version 2 only', () => {
		const resources = (version: number) =>
			(
				properties(version).find((property) => property.name === 'resource')
					?.options as INodePropertyOptions[]
			).map((option) => option.value);
		expect(resources(2)).toContain('futures');
		expect(resources(1)).not.toContain('futures');
		expect(
			properties(1).some((property) =>
				property.displayOptions?.show?.resource?.includes('futures'),
			),
		).toBe(false);
	});

	it.each([
		['getPositions', ['symbol']],
		['getBalance', []],
		['getFundingRate', ['symbol']],
		['getFundingRateHistory', ['symbol', 'returnAll', 'limit']],
		['getFundingFees', ['symbol', 'startTime', 'endTime', 'returnAll', 'limit']],
		['getOrders', ['orderStatus', 'orderType', 'symbol', 'symbol', 'returnAll', 'limit']],
		['getOrder', ['findBy', 'orderId', 'clientOrderId']],
		['getTrades', ['symbol', 'returnAll', 'limit']],
		['getLeverage', ['symbol']],
		['getCommissionRate', ['symbol']],
	])('%s takes %j', (operation, names) => {
		expect(parametersOf(operation)).toEqual(names);
	});

	it('names contracts with the contract picker, required where the service needs one', () => {
		const symbols = properties(2).filter(
			(property): property is INodeProperties =>
				property.name === 'symbol' &&
				Boolean(
					(property.displayOptions?.show?.resource as string[] | undefined)?.includes('futures'),
				),
		);
		// Eight reads take one, Get Orders two (optional for open orders, required for past); the
		// writes that name one contract take one each (Cancel Many: when it cancels by contract).
		expect(symbols).toHaveLength(14);
		for (const symbol of symbols) {
			expect(symbol.type).toBe('resourceLocator');
			expect(symbol.modes?.[0].typeOptions?.searchListMethod).toBe('searchContracts');
		}
		const required = symbols
			.filter((symbol) => symbol.required)
			.flatMap((symbol) => symbol.displayOptions?.show?.operation as string[]);
		expect(required.sort()).toEqual([
			'cancelManyOrders',
			'closePosition',
			'createOrder',
			'getCommissionRate',
			'getFundingRateHistory',
			'getLeverage',
			'getOrders',
			'getTrades',
			'setLeverage',
			'setPositionTpSl',
		]);
	});

	it('keeps the choices the examples use', () => {
		const optionsOf = (name: string, operation: string) =>
			(
				properties(2).find(
					(property) =>
						property.name === name &&
						(property.displayOptions?.show?.resource as string[] | undefined)?.includes(
							'futures',
						) &&
						(property.displayOptions?.show?.operation as string[] | undefined)?.includes(operation),
				)?.options as INodePropertyOptions[]
			).map((option) => option.value);
		expect(optionsOf('orderStatus', 'getOrders')).toEqual(['open', 'past']);
		expect(optionsOf('orderType', 'getOrders')).toEqual(['LIMIT', 'STOP']);
		expect(optionsOf('findBy', 'getOrder')).toEqual(['orderId', 'clientOrderId']);
		expect(optionsOf('orderType', 'createOrder').sort()).toEqual([
			'LIMIT',
			'LIMIT_MAKER',
			'MARKET',
			'STOP',
		]);
		expect(optionsOf('orderType', 'cancelOrder')).toEqual(['find', 'LIMIT', 'STOP']);
		expect(optionsOf('closeAmount', 'closePosition')).toEqual(['all', 'base', 'percent']);
	});
});
