import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { integerInRange } from '../helpers/validation';
import { requiredSymbol, type RunContext } from '../run/runContext';
import { MARKET_ENDPOINTS } from './endpoints';
import { decimalText, integerOf, readMarket, requiredSymbolField } from './marketReads';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getOrderBook'] } }, [
		requiredSymbolField(version),
		{
			// Not n8n's usual Limit: the book is one item, and this counts price levels a side.
			displayName: 'Depth',
			name: 'depth',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: LIMITS.depthMax },
			default: 100,
			description: `How many price levels to get on each side (bids and asks), from the best price outwards: 1 to ${LIMITS.depthMax}`,
		},
		...parallelRequestsOnly(version),
	]);

/** The levels of one side ([[price, quantity], …]) as `{ price, quantity }` objects. */
function levels(side: unknown): IDataObject[] {
	if (!Array.isArray(side)) return [];
	return side
		.filter((level): level is unknown[] => Array.isArray(level))
		.map((level) => ({ price: decimalText(level[0]), quantity: decimalText(level[1]) }));
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredSymbol(run, itemIndex);
	const limit = integerInRange(
		run.node,
		'Depth',
		run.parameter('depth', itemIndex, LIMITS.depthDefault),
		1,
		LIMITS.depthMax,
		itemIndex,
	);
	const query = { symbol, limit };
	const answer = (await readMarket(run, MARKET_ENDPOINTS.depth, query, itemIndex)) as IDataObject;
	const bids = levels(answer.b);
	const asks = levels(answer.a);
	return [
		{
			symbol,
			time: integerOf(answer.t),
			bids,
			asks,
			bestBidPrice: (bids[0]?.price as string | undefined) ?? '',
			bestAskPrice: (asks[0]?.price as string | undefined) ?? '',
		},
	];
}
