import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { contractField, requiredContract } from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getLeverage'] } }, [
		contractField(version, 'whose leverage to get'),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const qs = { symbol: requiredContract(run, itemIndex) };
	return (await run.client.request(FUTURES_ENDPOINTS.leverage, { qs, itemIndex })) as IDataObject[];
}
