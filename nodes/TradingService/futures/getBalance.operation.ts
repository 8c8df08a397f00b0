import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['futures'], operation: ['getBalance'] } },
		parallelRequestsOnly(version),
	);

/**
 * GET /api/v2/futures/balance: the key's futures account balance, one item per asset with its
 * balance and availableBalance as text. A key without a futures account gets no items.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return (await run.client.request(FUTURES_ENDPOINTS.balance, { itemIndex })) as IDataObject[];
}
