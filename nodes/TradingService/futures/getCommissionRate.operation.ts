import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField } from './futuresFields';
import { requiredContract } from './futuresParameters';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getCommissionRate'] } }, [
		contractField(version, 'whose commission rates to get'),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/commissionRate: the key's maker and taker fee rates for one contract, one
 * item: symbol, makerFeeRate and takerFeeRate, each a fraction as text (0.0006 is 0.06%).
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredContract(run, itemIndex);
	return [
		(await run.client.request(FUTURES_ENDPOINTS.commissionRate, {
			qs: { symbol },
			itemIndex,
		})) as IDataObject,
	];
}
