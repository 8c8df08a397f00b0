import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import { accountItem } from '../helpers/accounts';
import { ENDPOINTS } from '../transport';
import type { RunContext } from '../run/runContext';
import { parallelRequestsOnly } from '../descriptions/common';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['account'], operation: ['getAccounts'] } }, [
		...parallelRequestsOnly(version),
	]);

/**
 * GET /api/v1/account/type: the key's accounts, one item each, with the exchange's fields
 * (accountId, accountLabel, accountType, accountIndex, userId) and their `kind`: mainTrading,
 * subTrading, futures, custody, fiat or options (helpers/accounts.ts). The same list the From and To
 * Account pickers offer.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const accounts = (await run.client.request(ENDPOINTS.accountTypes, {
		itemIndex,
	})) as IDataObject[];
	return accounts.map(accountItem);
}
