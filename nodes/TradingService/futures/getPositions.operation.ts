import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { contractField, optionalContract } from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getPositions'] } }, [
		contractField(version, 'whose position to get', 'every open position'),
		...parallelRequestsOnly(version),
	]);

/** One request either way: the service lists every position without a symbol. */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalContract(run, itemIndex);
	const qs: IDataObject = symbol === undefined ? {} : { symbol };
	return (await run.client.request(FUTURES_ENDPOINTS.positions, {
		qs,
		itemIndex,
	})) as IDataObject[];
}
