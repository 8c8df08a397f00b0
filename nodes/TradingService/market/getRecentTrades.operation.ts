import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { limitParameter } from '../helpers/validation';
import { requiredSymbol, type RunContext } from '../run/runContext';
import { MARKET_ENDPOINTS } from './endpoints';
import { decimalText, entries, integerOf, readMarket, requiredSymbolField } from './marketReads';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getRecentTrades'] } }, [
		requiredSymbolField(version),
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: LIMITS.tradesMax },
			default: 50,
			description: 'Max number of results to return',
		},
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredSymbol(run, itemIndex);
	const limit = limitParameter(run, itemIndex, LIMITS.tradesMax);
	const answer = await readMarket(run, MARKET_ENDPOINTS.trades, { symbol, limit }, itemIndex);
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
