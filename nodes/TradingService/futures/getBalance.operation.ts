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

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return (await run.client.request(FUTURES_ENDPOINTS.balance, { itemIndex })) as IDataObject[];
}
