import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField, futuresReturnAllAndLimit, FUTURES_PAGE_SIZES } from './futuresFields';
import { requiredContract, wantedEntries } from './futuresParameters';
import { IdWalk, type IdPaging } from './idPages';

/** userTrades pages by `toId`: the trades below the oldest trade ID read. */
export const TRADES_PAGING: IdPaging = {
	what: 'trades',
	idField: 'tradeId',
	cursor: 'toId',
	cursorReading: 'below',
	pageSize: FUTURES_PAGE_SIZES.userTrades,
};

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getTrades'] } }, [
		contractField(version, 'whose fills to list'),
		...futuresReturnAllAndLimit(),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/userTrades: the key's futures fills of one contract, newest first, one item
 * each as the service answers it: time, tradeId, orderId, price, quantity, commission and
 * commissionAsset, realizedPnl, side, isMaker. Up to 1,000 a request; Return All and a larger Limit
 * page down by trade ID (`toId`). The exchange keeps fills for 30 days.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredContract(run, itemIndex);
	const wanted = wantedEntries(run, itemIndex);
	const walk = new IdWalk(run.node, TRADES_PAGING, { symbol }, wanted, itemIndex);
	await run.client.requestAllPages(FUTURES_ENDPOINTS.userTrades, walk);
	return walk.entries;
}
