import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly, returnAllAndLimit } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { contractField, FUTURES_MAX_LIMIT, requiredContract, wantedEntries } from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';
import { IdWalk, TRADES_PAGING } from './idPages';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['getTrades'] } }, [
		contractField(version, 'whose fills to list'),
		...returnAllAndLimit(FUTURES_MAX_LIMIT),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = requiredContract(run, itemIndex);
	const wanted = wantedEntries(run, itemIndex);
	const walk = new IdWalk(run.node, TRADES_PAGING, { symbol }, wanted, itemIndex);
	await run.client.requestAllPages(FUTURES_ENDPOINTS.userTrades, walk);
	return walk.entries;
}
