import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { requiredSymbolField } from './marketProperties';
import { decimalText, integerOf } from './marketData';
import { integerInRange } from '../helpers/validation';
import { ENDPOINTS } from '../transport';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { requiredSymbol } from '../run/symbolParameter';
import { readMarket } from './request';
import { parallelRequestsOnly } from '../descriptions/common';

const properties = (version: NodeVersion): INodeProperties[] => [
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
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getOrderBook'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

/** The levels of one side ([[price, quantity], …]) as `{ price, quantity }` objects. */
function levels(side: unknown): IDataObject[] {
	if (!Array.isArray(side)) return [];
	return side
		.filter((level): level is unknown[] => Array.isArray(level))
		.map((level) => ({ price: decimalText(level[0]), quantity: decimalText(level[1]) }));
}

/**
 * GET /quote/v1/depth: the order book of one trading pair as one item, bids best (highest) first
 * and asks best (lowest) first, prices and quantities as decimal strings.
 */
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
	const answer = (await readMarket(
		run,
		ENDPOINTS.depth,
		{ symbol, limit },
		itemIndex,
	)) as IDataObject;
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
