import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { contractField, contractsToRead, forEachContract, optionalContract } from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getFundingRate'] } }, [
		contractField(
			version,
			'whose current funding rate to get',
			'every contract the exchange lists (one request each)',
		),
		...parallelRequestsOnly(version),
	]);

/** The service answers nothing without a symbol: an empty Symbol asks for each contract in turn. */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalContract(run, itemIndex);
	const contracts = await contractsToRead(run, symbol, itemIndex);
	return await forEachContract(
		contracts,
		async (contract) =>
			(await run.client.request(FUTURES_ENDPOINTS.fundingRate, {
				qs: { symbol: contract },
				itemIndex,
			})) as IDataObject[],
	);
}
