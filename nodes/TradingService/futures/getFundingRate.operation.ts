import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { FUTURES_ENDPOINTS } from './endpoints';
import { contractField } from './futuresFields';
import { contractsToRead, forEachContract, optionalContract } from './futuresParameters';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getFundingRate'] } }, [
		contractField(
			version,
			'whose current funding rate to get',
			'every contract the exchange lists (one request each)',
		),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v2/futures/fundingRate: the funding rate of the period now running, one item per
 * contract: symbol, rate (a fraction as text: 0.0001 is 0.01%, positive: longs pay) and
 * nextFundingTime (when it is settled, milliseconds as text). The service answers nothing without a
 * symbol, so an empty Symbol reads exchange information's contracts, then asks for each, one request
 * after the other at the key's query rate.
 */
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
