import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField } from './futuresFields';
import { optionalContract } from './futuresParameters';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getPositions'] } }, [
		contractField(version, 'whose position to get', 'every open position'),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/positions: the open positions of the key's futures account, of one contract
 * or of all (one request either way), one item per position with the service's fields: avgPrice,
 * baseQty, quoteQty, markPrice, liquidationPrice ("0" for a cross-margin position), margin,
 * marginRate, unrealizedPnL, realizedPnL, leverage, marginType, positionSide. Decimals stay text.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalContract(run, itemIndex);
	const qs: IDataObject = symbol === undefined ? {} : { symbol };
	return (await run.client.request(FUTURES_ENDPOINTS.positions, {
		qs,
		itemIndex,
	})) as IDataObject[];
}
