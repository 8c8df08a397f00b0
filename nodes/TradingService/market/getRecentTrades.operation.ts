import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { limitField, requiredSymbolField } from './marketProperties';
import { decimalText, integerOf } from './marketData';
import { integerInRange } from '../helpers/validation';
import { ENDPOINTS } from '../transport';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { requiredSymbol } from '../run/symbolParameter';
import { entries, readMarket } from './request';
import { parallelRequestsOnly } from '../descriptions/common';

const properties = (version: NodeVersion): INodeProperties[] => [
	requiredSymbolField(version),
	limitField(LIMITS.tradesMax),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getRecentTrades'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /quote/v1/trades: the latest public trades of one trading pair, one item per trade, oldest
 * first, `{ symbol, time, price, quantity, isBuyerMaker }` with price and quantity as decimal strings.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredSymbol(run, itemIndex);
	const limit = integerInRange(
		run.node,
		'Limit',
		run.parameter('limit', itemIndex, 50),
		1,
		LIMITS.tradesMax,
		itemIndex,
	);
	const answer = await readMarket(run, ENDPOINTS.trades, { symbol, limit }, itemIndex);
	const trades = entries(answer).map((entry) => ({
		symbol,
		time: integerOf(entry.t),
		price: decimalText(entry.p),
		quantity: decimalText(entry.q),
		isBuyerMaker: entry.ibm === true,
	}));
	// Oldest first whichever order the service lists them in (sort is stable: ties keep theirs).
	return trades.sort((a, b) => (a.time ?? 0) - (b.time ?? 0));
}
