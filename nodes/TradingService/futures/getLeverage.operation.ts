import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField } from './futuresFields';
import { requiredContract } from './futuresParameters';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getLeverage'] } }, [
		contractField(version, 'whose leverage to get'),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/leverage: the leverage and margin type (CROSS or ISOLATED) the key's futures
 * account uses for one contract, one item each as the service answers it: symbolId, leverage (a
 * whole number as text, e.g. "5"), marginType.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredContract(run, itemIndex);
	return (await run.client.request(FUTURES_ENDPOINTS.leverage, {
		qs: { symbol },
		itemIndex,
	})) as IDataObject[];
}
