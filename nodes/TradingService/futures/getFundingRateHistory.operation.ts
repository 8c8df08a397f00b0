import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField, futuresReturnAllAndLimit } from './futuresFields';
import { requiredContract, wantedEntries } from './futuresParameters';
import { FUNDING_RATE_PAGING, IdWalk } from './idPages';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getFundingRateHistory'] } }, [
		contractField(version, 'whose settled funding rates to list'),
		...futuresReturnAllAndLimit(),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/historyFundingRate: the funding rates settled for one contract, newest first,
 * one item each: id, symbol, settleTime (milliseconds as text) and settleRate (a fraction as text:
 * 0.0001 is 0.01%). Up to 100 a request; Return All and a Limit above 100 page down by ID.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredContract(run, itemIndex);
	const wanted = wantedEntries(run, itemIndex);
	const walk = new IdWalk(run.node, FUNDING_RATE_PAGING, { symbol }, wanted, itemIndex);
	await run.client.requestAllPages(FUTURES_ENDPOINTS.historyFundingRate, walk);
	return walk.entries;
}
